import Foundation
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

@Suite("A sign-in URL is presented only when it is https (or http on loopback)")
struct AuthenticationURLTests {
    static let refused = [
        "javascript:alert(sessionStorage['remote-modal.session'])", "data:text/html,<script>1</script>",
        "file:///etc/passwd", "http://idp.example/authorize", "myapp://authorize", "https:///nohost",
        "JavaScript://idp.example/%0aalert(1)", "https://idp.example@evil.example/authorize",
        "https://user:pass@idp.example/authorize",
    ]
    static let accepted = [
        "https://idp.example/authorize?state=s", "HTTPS://idp.example/a", "http://127.0.0.1:9000/authorize",
        "http://localhost/authorize", "http://[::1]:8080/authorize",
    ]

    @Test(arguments: refused)
    func aNativeSessionWithAnotherSchemeFailsAndPresentsNothing(url text: String) throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["webAuthentication"])
        let outcome = Outcome<URL>()
        let url = try #require(URL(string: text))
        _ = RemoteModal.webAuthenticationSession(
            presenter: .session(harness.session(of: client)), url: url, callbackURLScheme: "myapp"
        ).asObservable().subscribe(outcome.observer())
        harness.settle()
        #expect(client.presents.isEmpty)
        guard case .invalidConfiguration(let reason)? = outcome.error else {
            Issue.record("\(text): \(String(describing: outcome.error))")
            return
        }
        #expect(reason.contains("sign-in URL"))
        #expect(!reason.contains("state="))
        // A script is never quoted back (issue 33, round six: "needs a host: javascript:…").
        #expect(!reason.lowercased().contains("alert"), "\(reason)")
        #expect(!reason.contains("sessionStorage"), "\(reason)")
        if text.contains("@") { #expect(reason.contains("user name or password"), "\(reason)") }
    }

    @Test(arguments: refused)
    func aHostServedSessionWhoseProviderGivesAnotherSchemeFailsAndPresentsNothing(url text: String) throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["webAuthentication"])
        let outcome = Outcome<URL>()
        let url = try #require(URL(string: text))
        _ = RemoteModal.webAuthenticationSession(presenter: .session(harness.session(of: client))) { _, _ in url }
            .asObservable().subscribe(outcome.observer())
        harness.settle()
        #expect(client.presents.isEmpty)
        if case .invalidConfiguration? = outcome.error {
        } else {
            Issue.record("\(text): \(String(describing: outcome.error))")
        }
    }

    @Test(arguments: accepted)
    func httpsAndLoopbackHTTPArePresented(url text: String) throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["webAuthentication"])
        let url = try #require(URL(string: text))
        _ = RemoteModal.webAuthenticationSession(
            presenter: .session(harness.session(of: client)), url: url, callbackURLScheme: "myapp"
        ).subscribe { _ in }
        _ = RemoteModal.webAuthenticationSession(presenter: .session(harness.session(of: client))) { _, _ in url }
            .subscribe { _ in }
        harness.settle()
        #expect(client.presents.count == 2)
    }
}
