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

    private func approve(_ id: String) -> ClientMessage {
        .result(id: id, value: ["action": 0])
    }

    @Test func aSecondScreenWithTheRequestersTokenSeesApproveDisabledAndIsRefused() throws {
        let harness = desk()
        let requester = join(harness, token: "lobby-token")
        let sameToken = join(harness, token: "lobby-token")
        let desk = join(harness, token: "desk-token")
        let outcome = Outcome<String>()
        let session = harness.session(of: requester)
        _ = RemoteModal.alert(
            String.self, presenter: Presenter.sameGroup(as: session).disablingActions([0], for: session),
            title: "Approve request?",
            actions: [
                .default(title: "Approve", mapContext: { "Approved by \($0.session.client.name)" }),
                .destructive(title: "Reject", mapContext: { "Rejected by \($0.session.client.name)" }),
            ]
        ).asObservable().subscribe(outcome.observer())
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

    struct Unexpected: Error { let modal: ModalDescription }
}
