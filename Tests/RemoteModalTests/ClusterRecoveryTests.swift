import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

/// What is still open after issue #33's round three (N2, N3): a subscription Redis cuts while
/// it still answers commands loses nothing that crosses hosts, and a claim taken first by an
/// outsider with write access blocks nothing.
@Suite("Cluster: a lost subscription and squatted claims")
struct ClusterRecoveryTests {
    let cluster = ClusterSecurityTests()

    /// An approval asked on host a of group `lobby` (with `others` of host a in it too),
    /// shown on host b's kiosk, then every subscription cut.
    private func pendingWhileCut(others: [String] = []) -> (Outcome<String>, TestClient, [TestClient]) {
        let asker = cluster.a.connect(name: "asker", group: "lobby")
        let locals = others.map { cluster.a.connect(name: $0, group: "lobby") }
        let kiosk = cluster.b.connect(name: "kiosk-b", group: "lobby")
        cluster.settle()
        let outcome = cluster.ask(.sameGroup(as: cluster.a.session(of: asker)))
        #expect(kiosk.presents.count == 1)
        cluster.hub.dropSubscriptions()
        cluster.settle()
        return (outcome, kiosk, locals)
    }

    @Test func anAnswerGivenWhileTheSubscriptionsAreCutArrivesOnceTheyReturn() {
        let (outcome, kiosk, _) = pendingWhileCut()
        #expect(!outcome.finished, "a pending approval waits for the subscription to return")
        // The kiosk answers meanwhile: its claim goes through, its message is heard by nobody.
        kiosk.send(alertResult("m1", action: 0))
        cluster.settle()
        #expect(!outcome.finished)
        cluster.hub.resubscribe()
        cluster.settle()
        #expect(outcome.elements == ["kiosk-b"])
        #expect(cluster.a.host.metricsText.contains("remote_modal_cluster_resubscribed_total 1"))
        #expect(cluster.a.host.metricsText.contains("remote_modal_cluster_recovered_total 1"))
    }

    @Test func aCopyWhoseClaimAnotherHostWonMeanwhileIsSuperseded() {
        let (outcome, kiosk, locals) = pendingWhileCut(others: ["witness"])
        locals[0].send(alertResult("m1", action: 0))
        cluster.settle()
        #expect(outcome.elements == ["witness"])
        #expect(kiosk.dismissals.isEmpty, "host a's dismiss was not heard")
        cluster.hub.resubscribe()
        cluster.settle()
        #expect(kiosk.dismissals.map(\.reason) == [.superseded])
    }

    @Test func pendingPresentationsFailWhenTheSubscriptionDoesNotReturnWithinTheGrace() {
        let asker = cluster.a.connect(name: "asker", group: "lobby")
        _ = cluster.b.connect(name: "kiosk-b", group: "lobby")
        cluster.settle()
        let outcome = cluster.ask(.sameGroup(as: cluster.a.session(of: asker)))
        cluster.hub.dropSubscriptions()
        cluster.settle()
        cluster.a.advance(seconds: 29)
        cluster.settle()
        #expect(!outcome.finished)
        cluster.a.advance(seconds: 2)
        cluster.settle()
        #expect(outcome.error == .clusterUnavailable)
    }

    @Test func aClaimTakenFirstUnderThePresentationsIDBlocksNothing() {
        let asker = cluster.a.connect(name: "asker", group: "lobby")
        let kiosk = cluster.b.connect(name: "kiosk-b", group: "lobby")
        cluster.settle()
        // Presentation ids are predictable (HOST.N): an outsider takes each claim first.
        for number in 1...8 {
            cluster.hub.forgeClaim("remote-modal:answered:\(cluster.aID).\(number)", value: "squatter")
        }
        let squatted = Set(cluster.hub.claimKeys)
        let outcome = cluster.ask(.sameGroup(as: cluster.a.session(of: asker)))
        kiosk.send(alertResult("m1", action: 0))
        cluster.settle()
        #expect(outcome.elements == ["kiosk-b"])
        // The claim the hosts used is named by the cluster key, not by the id.
        let used = Set(cluster.hub.claimKeys).subtracting(squatted)
        #expect(used.count == 1)
        #expect(used.allSatisfy { !$0.contains(cluster.aID) })
    }
}
