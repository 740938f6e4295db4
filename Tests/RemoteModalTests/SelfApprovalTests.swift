import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

@Suite("A requester never approves its own request, through any session of its token")
struct SelfApprovalTests {
    private func desk() -> HostHarness {
        HostHarness {
            $0.tokenGrants = [
                TokenGrant(token: "lobby-token", name: "Lobby kiosk 1", groups: ["lobby"]),
                TokenGrant(token: "desk-token", name: "Security desk", groups: ["lobby"]),
            ]
        }
    }

    private func join(_ harness: HostHarness, token: String) -> TestClient {
        let client = harness.transport.connect()
        client.hello(name: "x", group: "lobby", capabilities: ["alert"], token: token)
        harness.settle()
        return client
    }

    /// The requester's group is asked to approve; Approve is disabled for the requester.
    private func askApproval(for session: Session, explanation: String? = nil) -> Outcome<String> {
        let outcome = Outcome<String>()
        let group = Presenter.sameGroup(as: session)
        _ = RemoteModal.alert(
            String.self,
            presenter: explanation.map { group.disablingActions([0], for: session, explanation: $0) }
                ?? group.disablingActions([0], for: session),
            title: "Approve request?",
            actions: [
                .default(title: "Approve", mapContext: { "Approved by \($0.session.client.name)" }),
                .destructive(title: "Reject", mapContext: { "Rejected by \($0.session.client.name)" }),
            ]
        ).asObservable().subscribe(outcome.observer())
        return outcome
    }

    private func approve(_ id: String) -> ClientMessage {
        .result(id: id, value: ["action": 0])
    }

    @Test func aSecondScreenWithTheRequestersTokenSeesApproveDisabledAndIsRefused() throws {
        let harness = desk()
        let requester = join(harness, token: "lobby-token")
        let sameToken = join(harness, token: "lobby-token")
        let desk = join(harness, token: "desk-token")
        let outcome = askApproval(for: harness.session(of: requester))
        harness.settle()

        func approveEnabled(_ client: TestClient) throws -> Bool {
            let modal = try #require(client.presents.last?.modal)
            guard case .alert(_, _, _, let actions) = modal else { throw Unexpected(modal: modal) }
            return actions[0].enabled
        }
        #expect(try approveEnabled(requester) == false)
        #expect(try approveEnabled(sameToken) == false)
        #expect(try approveEnabled(desk) == true)

        let id = try #require(sameToken.presents.last?.id)
        sameToken.send(approve(id))
        harness.settle()
        #expect(sameToken.errors.last == .badMessage)
        #expect(outcome.elements.isEmpty)

        desk.send(approve(id))
        harness.settle()
        #expect(outcome.elements == ["Approved by Security desk"])
    }

    /// Round five of the outside attack: a session of the requester's own token on another
    /// host of the cluster saw Approve enabled and approved ("Approved by Requester"): the copy
    /// knew the requester by its session only. The disabled actions now go with the token.
    @Test func aSessionOfTheRequestersTokenOnAnotherHostSeesApproveDisabledAndIsRefused() throws {
        let hub = InMemoryBackplaneHub()
        let key = try ClusterKey(bytes: Array("the cluster key of this test, 32+ bytes".utf8))
        func host(_ name: String) -> HostHarness {
            let cluster = ClusterConfiguration(
                backplane: hub.backplane(), hostName: name, membershipExpirySeconds: 3, key: key)
            return HostHarness {
                $0.cluster = cluster
                $0.tokenGrants = [
                    TokenGrant(token: "lobby-token", name: "Lobby kiosk 1", groups: ["lobby"]),
                    TokenGrant(token: "desk-token", name: "Security desk", groups: ["lobby"]),
                ]
            }
        }
        let (a, b) = (host("a"), host("b"))
        func settle() {
            for _ in 0..<6 {
                hub.settle()
                a.settle()
                b.settle()
            }
        }
        settle()
        let requester = join(a, token: "lobby-token")
        let sameToken = join(b, token: "lobby-token")
        let desk = join(b, token: "desk-token")
        settle()
        let outcome = askApproval(for: a.session(of: requester), explanation: "Another screen must approve it")
        settle()
        func approveAction(of client: TestClient) throws -> ActionSpec {
            let modal = try #require(client.presents.last?.modal)
            guard case .alert(_, _, _, let actions) = modal else { throw Unexpected(modal: modal) }
            return actions[0]
        }
        func approveEnabled(_ client: TestClient) throws -> Bool { try approveAction(of: client).enabled }
        #expect(try approveEnabled(sameToken) == false, "the requester's token on host b")
        #expect(try approveAction(of: sameToken).explanation == "Another screen must approve it", "said there too")
        #expect(try approveEnabled(desk) == true)
        #expect(try approveAction(of: desk).explanation == nil)
        let id = try #require(sameToken.presents.last?.id)
        sameToken.send(approve(id))
        settle()
        #expect(outcome.elements.isEmpty, "not approved by the requester's own token")
        desk.send(approve(try #require(desk.presents.last?.id)))
        settle()
        #expect(outcome.elements == ["Approved by Security desk"])
    }

    struct Unexpected: Error { let modal: ModalDescription }
}
