import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

/// Two hosts joined through an in-memory backplane.
@Suite("Cluster: presentations across hosts")
struct ClusterTests {
    let hub = InMemoryBackplaneHub()
    let a: HostHarness
    let b: HostHarness
    let backplaneB: InMemoryBackplane

    init() {
        let hub = self.hub
        let backplaneB = hub.backplane()
        self.backplaneB = backplaneB
        a = HostHarness {
            $0.cluster = ClusterConfiguration(backplane: hub.backplane(), hostName: "a", membershipExpirySeconds: 3)
        }
        b = HostHarness {
            $0.cluster = ClusterConfiguration(backplane: backplaneB, hostName: "b", membershipExpirySeconds: 3)
        }
        settle()
    }

    func settle() {
        for _ in 0..<4 {
            hub.settle()
            a.settle()
            b.settle()
        }
    }

    func ask(_ presenter: Presenter) -> Outcome<(Int, String)> {
        let outcome = Outcome<(Int, String)>()
        _ = RemoteModal.alert(
            presenter: presenter, title: "Approve?",
            actions: [
                .default(title: "Yes", mapContext: { (1, $0.session.client.name) }),
                .cancel(title: "No", mapContext: { (0, $0.session.client.name) }),
            ]
        ).subscribe(outcome.observer())
        settle()
        return outcome
    }

    @Test func aGroupPresentationReachesTheOtherHostAndItsAnswerArrivesOnce() {
        let asker = a.connect(name: "asker", group: "lobby")
        let kiosk = b.connect(name: "kiosk-b", group: "lobby")
        settle()
        let outcome = ask(.sameGroup(as: a.session(of: asker)))
        #expect(asker.presents.count == 1)
        #expect(kiosk.presents.map(\.modal.title) == ["Approve?"])
        kiosk.send(alertResult("m1", action: 0))
        settle()
        #expect(outcome.elements.map(\.0) == [1])
        #expect(outcome.elements.map(\.1) == ["kiosk-b"])
        #expect(outcome.completed)
        #expect(kiosk.dismissals.map(\.reason) == [.resolved])
        // The answer re-sent (after a reconnect): the dismiss is repeated, nothing delivered.
        kiosk.send(alertResult("m1", action: 1))
        settle()
        #expect(kiosk.dismissals.map(\.reason) == [.resolved, .resolved])
        #expect(outcome.elements.count == 1)
        #expect(asker.dismissals.map(\.reason) == [.superseded])
        // A late answer on the superseded copy is not accepted either.
        asker.send(alertResult("m1", action: 1))
        settle()
        #expect(outcome.elements.count == 1)
    }

    @Test func twoAnswersRacingFromTwoHostsExactlyOneWins() {
        let asker = a.connect(name: "asker", group: "race")
        let kiosk = b.connect(name: "kiosk-b", group: "race")
        settle()
        for round in 1...50 {
            let outcome = ask(.sameGroup(as: a.session(of: asker)))
            asker.send(alertResult("m\(round)", action: 0))
            kiosk.send(alertResult("m\(round)", action: 1))
            settle()
            #expect(outcome.elements.count == 1)
            let reasons = [asker.dismissals.last?.reason, kiosk.dismissals.last?.reason]
            #expect(reasons.contains(.resolved) && reasons.contains(.superseded))
            let winner = asker.dismissals.last?.reason == .resolved ? "asker" : "kiosk-b"
            #expect(outcome.elements.first?.1 == winner)
        }
        // Each round claims at least once (an answer arriving after the winner's is not claimed).
        #expect(hub.claimsDecided >= 50)
    }

    @Test func disposingAtTheOriginDismissesEverywhere() {
        let asker = a.connect(name: "asker", group: "lobby")
        let kiosk = b.connect(name: "kiosk-b", group: "lobby")
        settle()
        let subscription = RemoteModal.alert(
            presenter: .sameGroup(as: a.session(of: asker)), title: "Approve?",
            actions: [.default(title: "Yes", mapTo: 1)]
        ).subscribe()
        settle()
        #expect(kiosk.presents.count == 1)
        subscription.dispose()
        settle()
        #expect(kiosk.dismissals.map(\.reason) == [.disposed])
        #expect(asker.dismissals.map(\.reason) == [.disposed])
    }

    @Test func membershipDecidesMissingPresenterAndUnsupportedClusterWide() {
        _ = b.connect(name: "kiosk-b", group: "remote-only", capabilities: ["actionSheet"])
        settle()
        #expect(ask(.group("remote-only", on: a.host)).error == .unsupported)
        #expect(ask(.group("nobody", on: a.host)).error == .missingPresenter)
        let kiosk = b.connect(name: "kiosk-b2", group: "remote-only")
        settle()
        let outcome = ask(.group("remote-only", on: a.host))
        #expect(kiosk.presents.count == 1)
        kiosk.send(alertResult("m1", action: 1))
        settle()
        #expect(outcome.elements.map(\.0) == [0])
    }

    @Test func aSessionIDReachesTheHostItIsConnectedTo() {
        let kiosk = b.connect(name: "kiosk-b")
        settle()
        let outcome = ask(.session(id: kiosk.session!, on: a.host))
        #expect(kiosk.presents.count == 1)
        kiosk.send(alertResult("m1", action: 0))
        settle()
        #expect(outcome.elements.map(\.1) == ["kiosk-b"])
    }

    @Test func withoutTheBackplaneClusterPresentationsFailFastAndLocalOnesWork() {
        let asker = a.connect(name: "asker", group: "lobby")
        let kiosk = b.connect(name: "kiosk-b", group: "lobby")
        settle()
        let pending = ask(.sameGroup(as: a.session(of: asker)))
        hub.setUp(false)
        settle()
        #expect(pending.error == .clusterUnavailable)
        #expect(kiosk.dismissals.map(\.reason) == [.disposed])
        #expect(ask(.sameGroup(as: a.session(of: asker))).error == .clusterUnavailable)
        let local = ask(.session(a.session(of: asker)))
        // m1 was the failed cluster presentation; the fast failure allocated no modal.
        asker.send(alertResult("m2", action: 0))
        settle()
        #expect(local.elements.map(\.1) == ["asker"])
        hub.setUp(true)
        settle()
        let again = ask(.sameGroup(as: a.session(of: asker)))
        kiosk.send(alertResult("m2", action: 0))
        settle()
        #expect(again.elements.map(\.1) == ["kiosk-b"])
    }

    @Test func aDeadHostsCopiesAreWithdrawnAfterTheExpiry() {
        let kiosk = b.connect(name: "kiosk-b", group: "lobby")
        settle()
        let outcome = ask(.group("lobby", on: a.host))
        #expect(kiosk.presents.count == 1)
        hub.cutOff(backplaneB)
        a.advance(seconds: 2)
        settle()
        #expect(!outcome.finished)
        a.advance(seconds: 3)
        settle()
        #expect(outcome.error == .missingPresenter)
        #expect(a.host.metricsText.contains("remote_modal_cluster_members_seen 0"))
    }
}
