import Foundation
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTransport

/// A pending host-served web authentication: its `state` and how to resolve it.
struct AuthCallback: Sendable {
    let state: String
    let deliver: @Sendable (String) -> Void
}

extension HostCore {
    /// Presents a web authentication modal whose callback this host serves.
    func presentWebAuthentication(
        _ presenter: Presenter, timeout: Duration?, options: WebAuthenticationOptions = WebAuthenticationOptions(),
        authorizeURL: @escaping @Sendable (URL, String) -> URL,
        report: @escaping @Sendable (Result<URL, any Error>) -> Void
    ) -> any Disposable {
        let nonce = Secrets.sessionID()
        let state = Secrets.sessionID()
        guard let callback = URL(string: "\(configuration.publicBaseURL)\(configuration.callbackPathPrefix)\(nonce)")
        else {
            report(.failure(RemoteModalError.failed("invalid public base URL")))
            return Disposables.create()
        }
        let authorize = authorizeURL(callback, state)
        if let refused = AuthenticationURLPolicy.refusal(authorize) {
            logger.warning("web authentication not presented: \(refused)")
            report(.failure(refused))
            return Disposables.create()
        }
        // A short link to the authorization URL, for clients that show an address to type or
        // a QR code (25 modules, not 49): the same provider page after one redirect, for as
        // long as the modal is open.
        let code = Secrets.shortCode()
        shortLinks.withLock { $0[code] = authorize.absoluteString }
        var shown = options
        shown.shortURL = "\(configuration.publicBaseURL)\(configuration.shortLinkPathPrefix)\(code)"
        let description = ModalDescription.webAuthentication(
            url: authorize.absoluteString, callbackURL: callback.absoluteString, callbackURLScheme: nil,
            options: shown)
        let token = PresentationToken(core: self)
        authCallbacks.withLock {
            $0[nonce] = AuthCallback(state: state) { [self] url in
                perform { self.resolveExternally(token, .callbackURL(url)) }
            }
        }
        let presentation = present(
            presenter, description, rules: [], timeout: timeout, token: token,
            callbacks: PresentationCallbacks(
                answered: { accepted in
                    if case .callbackURL(let text) = accepted.answer, let url = URL(string: text) {
                        report(.success(url))
                    } else {
                        report(.failure(RemoteModalError.failed("unexpected answer")))
                    }
                },
                failed: { report(.failure($0)) }))
        return Disposables.create { [self] in
            authCallbacks.withLock { _ = $0.removeValue(forKey: nonce) }
            shortLinks.withLock { _ = $0.removeValue(forKey: code) }
            presentation.dispose()
        }
    }

    /// Answers a presentation from outside the protocol (the HTTP callback).
    private func resolveExternally(_ token: PresentationToken, _ answer: ModalAnswer) {
        guard let presentation = token.presentation, !presentation.finished,
            let (session, _) = presentation.targets.first
        else { return }
        finish(presentation, answeredBy: session, reason: .resolved)
        metrics.resolved(after: clock.now.timeIntervalSince(presentation.presentedAt))
        Presenter.withCurrentSession(session.handle) {
            presentation.callbacks.answered(AcceptedAnswer(answer: answer, session: session.handle, files: []))
        }
    }

    /// `/auth/callback/NONCE` (or `/auth/INSTANCE/callback/NONCE`): single use, `state`
    /// checked; answers with a page that closes its window.
    func authCallbackRoute(_ request: HTTPRequest) -> HTTPResponse? {
        let prefix = configuration.callbackPathPrefix
        guard request.path.hasPrefix(prefix) else { return nil }
        let nonce = String(request.path.dropFirst(prefix.count))
        // Only the identity provider's redirect (a GET) consumes the one-time callback: a
        // HEAD (link previews, scanners) or anything else leaves it waiting.
        guard request.method == "GET" else {
            return .html(405, Self.page("Method not allowed", "Open this link in a browser.", closes: false))
        }
        let outcome: (status: Int, deliver: (@Sendable (String) -> Void)?) = authCallbacks.withLock { callbacks in
            guard let entry = callbacks[nonce] else { return (404, nil) }
            guard let state = request.queryItems["state"], Secrets.constantTimeEquals(state, entry.state) else {
                return (400, nil)
            }
            callbacks[nonce] = nil
            return (200, entry.deliver)
        }
        switch outcome.status {
        case 200:
            var components = URLComponents(string: "\(configuration.publicBaseURL)\(request.path)")
            components?.queryItems = request.queryItems.sorted { $0.key < $1.key }.map {
                URLQueryItem(name: $0.key, value: $0.value)
            }
            outcome.deliver?(components?.string ?? "\(configuration.publicBaseURL)\(request.path)")
            logger.info("web authentication callback accepted")
            return .html(200, Self.page("Signed in", "You can close this window.", closes: true))
        case 400:
            logger.warning("web authentication callback refused: state does not match")
            return .html(
                400, Self.page("Sign-in refused", "This sign-in response does not match the request.", closes: false))
        default:
            return .html(
                404, Self.page("Link expired", "This sign-in link was already used or has expired.", closes: false))
        }
    }

    /// `/s/CODE` (or `/auth/INSTANCE/s/CODE`): a redirect to the authorization URL of a sign-in
    /// being shown. Not single use (a phone's preview may fetch it first); it goes with its modal.
    func shortLinkRoute(_ request: HTTPRequest) -> HTTPResponse? {
        let prefix = configuration.shortLinkPathPrefix
        guard request.path.hasPrefix(prefix) else { return nil }
        let code = String(request.path.dropFirst(prefix.count))
        guard request.method == "GET" || request.method == "HEAD" else {
            return .html(405, Self.page("Method not allowed", "Open this link in a browser.", closes: false))
        }
        let now = clock.now.timeIntervalSince1970
        let address = request.clientAddress
        if let wait = shortLinkMisses.withLock({ $0.lockedOut(address, now: now) }) {
            var response = HTTPResponse.html(
                429,
                Self.page("Too many tries", "Too many wrong sign-in links from here; try again later.", closes: false))
            response.headers = [("retry-after", String(Int(wait.rounded(.up)))), ("cache-control", "no-store")]
            return response
        }
        guard let target = shortLinks.withLock({ $0[code] }) else {
            if shortLinkMisses.withLock({ $0.miss(address, now: now) }) {
                logger.warning(
                    "short links: \(logSafe(address)) tried \(configuration.shortLinkMissesPerMinute) wrong codes"
                        + " within a minute; answered 429 for \(Int(configuration.shortLinkLockoutSeconds)) s")
            }
            return .html(
                404, Self.page("Link expired", "This sign-in link was already used or has expired.", closes: false))
        }
        var response = HTTPResponse.html(302, Self.page("Sign in", "Continue to the sign-in page.", closes: false))
        response.headers = [("location", target), ("cache-control", "no-store"), ("referrer-policy", "no-referrer")]
        return response
    }

    private static func page(_ title: String, _ text: String, closes: Bool) -> String {
        let script = closes ? "<script>setTimeout(function () { window.close(); }, 300);</script>" : ""
        return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(title)</title></head>"
            + "<body><h1>\(title)</h1><p>\(text)</p>\(script)</body></html>"
    }
}
