import Foundation
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

@Suite("An action's rule in words: `explanation` on the wire, and only on the copies it concerns")
struct ExplanationTests {
    private func actions(_ client: TestClient) throws -> [ActionSpec] {
        let modal = try #require(client.presents.last?.modal)
        guard case .alert(_, _, _, let actions) = modal else { throw Unexpected(modal: modal) }
        return actions
    }

    @Test func anEnabledIfRuleCarriesItsExplanation() throws {
        let harness = HostHarness()
        let client = harness.transport.connect()
        client.hello(name: "x", capabilities: ["alert"])
        harness.settle()
        let session = harness.session(of: client)
        _ = RemoteModal.alert(
            String?.self, presenter: .session(session), title: "Sign in",
            textFields: [.email(placeholder: "e-mail")],
            actions: [
                .cancel(title: "Cancel", mapTo: nil),
                DialogAction.default(title: "Sign In", map: { $0[0] })
                    .enabledIf(explanation: "Enter an e-mail address") { $0[0].contains("@") },
            ]
        ).subscribe(onNext: { _ in })
        harness.settle()
        let sent = try actions(client)
        #expect(sent.map(\.explanation) == [nil, "Enter an e-mail address"])
        #expect(sent.map(\.enabled) == [true, false])
    }

    @Test func theRequestersCopyAloneSaysWhyItsApproveIsDisabled() throws {
        let harness = HostHarness()
        let requester = harness.transport.connect()
        requester.hello(name: "asker", group: "lobby", capabilities: ["alert"])
        let other = harness.transport.connect()
        other.hello(name: "desk", group: "lobby", capabilities: ["alert"])
        harness.settle()
        let session = harness.session(of: requester)
        _ = RemoteModal.alert(
            presenter: Presenter.sameGroup(as: session).disablingActions(
                [0], for: session, explanation: "Another screen must approve it"),
            title: "Approve request?",
            actions: [.default(title: "Approve", mapTo: "yes"), .destructive(title: "Reject", mapTo: "no")]
        ).subscribe(onNext: { _ in })
        harness.settle()
        let mine = try actions(requester)
        let theirs = try actions(other)
        #expect(mine.map(\.enabled) == [false, true])
        #expect(mine.map(\.explanation) == ["Another screen must approve it", nil])
        #expect(theirs.map(\.enabled) == [true, true])
        #expect(theirs.map(\.explanation) == [nil, nil])
    }

    @Test func theFieldRoundTripsAndIsLeftOutWhenAbsent() throws {
        let modal = ModalDescription.alert(
            title: "T", message: nil, textFields: [],
            actions: [
                ActionSpec(title: "Go", enabled: false, explanation: "Fill in \u{201C}name\u{201D}"),
                ActionSpec(title: "Stop", style: .cancel),
            ])
        let text = HostMessage.present(seq: 1, id: "m1", modal: modal, uploads: nil).encode()
        #expect(text.contains(#""explanation":"Fill in \#u{201C}name\#u{201D}""#))
        #expect(text.components(separatedBy: "explanation").count == 2)
        #expect(try HostMessage.decode(text) == .present(seq: 1, id: "m1", modal: modal, uploads: nil))
    }

    struct Unexpected: Error { let modal: ModalDescription }
}

@Suite("A web authentication's short link: `shortURL` on the wire")
struct ShortLinkTests {
    @Test func theHostServedSessionSendsAShortLinkBesideTheProvidersURL() throws {
        let harness = HostHarness()
        let client = harness.transport.connect()
        client.hello(name: "x", capabilities: ["webAuthentication"])
        harness.settle()
        let provider = try #require(URL(string: "https://idp.example/authorize?client_id=kiosk"))
        _ = RemoteModal.webAuthenticationSession(presenter: .session(harness.session(of: client))) { _, _ in
            provider
        }
        .subscribe { _ in }
        harness.settle()
        let modal = try #require(client.presents.last?.modal)
        guard case .webAuthentication(let url, _, _, let options) = modal else {
            Issue.record("not a web authentication: \(modal)")
            return
        }
        #expect(url == provider.absoluteString)
        let short = try #require(options.shortURL)
        #expect(short.hasPrefix("http://127.0.0.1:8080/s/"))
        #expect(short.count == "http://127.0.0.1:8080/s/".count + 8)
    }

    @Test func theFieldRoundTrips() throws {
        let modal = ModalDescription.webAuthentication(
            url: "https://idp.example/a", callbackURL: "https://h.example/auth/callback/n", callbackURLScheme: nil,
            options: WebAuthenticationOptions(shortURL: "https://h.example/s/abcdefgh"))
        let text = HostMessage.present(seq: 1, id: "m1", modal: modal, uploads: nil).encode()
        #expect(text.contains(#""shortURL":"https://h.example/s/abcdefgh""#))
        #expect(try HostMessage.decode(text) == .present(seq: 1, id: "m1", modal: modal, uploads: nil))
    }
}
