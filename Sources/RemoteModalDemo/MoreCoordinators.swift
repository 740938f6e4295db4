import Foundation
import RemoteModalHost
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive

/// What "Save draft" kept for one session: the mail as it was saved, presented again the
/// next time Mail is opened, until it is sent or `lifetime` has passed since it was saved.
/// On a shared screen the next person must not find the last one's mail (issue 32's third
/// cold trial read a draft hours later on a kiosk that never restarted). A copy shares the
/// same storage.
struct ContactDrafts: Sendable {
    /// How long a saved draft is kept, in seconds.
    let lifetime: Double
    private let saved = Locked<(mail: MailConfiguration, at: ContinuousClock.Instant)?>(nil)

    init(lifetime: Double) { self.lifetime = lifetime }

    /// Keeps `mail` as the draft, from now.
    func keep(_ mail: MailConfiguration) { saved.withLock { $0 = (mail, .now) } }

    /// Forgets the draft.
    func clear() { saved.withLock { $0 = nil } }

    /// The draft, unless it is older than `lifetime` (then it is forgotten).
    func current() -> MailConfiguration? {
        saved.withLock { draft in
            guard let kept = draft else { return nil }
            guard ContinuousClock.now - kept.at <= .milliseconds(Int64(lifetime * 1000)) else {
                draft = nil
                return nil
            }
            return kept.mail
        }
    }

    /// "5 minutes", "90 seconds": the lifetime as the person is told it.
    var lifetimeWords: String {
        let seconds = Int(lifetime.rounded())
        if seconds >= 120, seconds % 60 == 0 { return "\(seconds / 60) minutes" }
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }
}

/// `contact`: an action sheet, then a mail or message composer. Mail opens on the draft
/// "Save draft" kept, if any; Cancel or Escape on the sheet says "Contact cancelled".
final class ContactCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    private enum Choice: Sendable {
        case mail, message
    }

    private let drafts: ContactDrafts

    init(session: Session, drafts: ContactDrafts) {
        self.drafts = drafts
        super.init(session: session)
    }

    override func start() -> Observable<Void> {
        let session = self.session
        let presenter = self.presenter
        let drafts = self.drafts
        return RemoteModal.actionSheet(
            Choice?.self, presenter: presenter, source: "contact", title: "Contact us",
            actions: [
                .default(title: "Mail", mapTo: .mail), .default(title: "Message", mapTo: .message),
                .cancel(title: "Cancel", mapTo: nil),
            ]
        )
        .flatMap { choice -> Observable<Void> in
            switch choice {
            case nil:
                // The sheet's Cancel: said as Escape's `failure` `cancelled` is.
                session.notify("Contact cancelled", level: .info)
                return .empty()
            case .mail:
                let draft = drafts.current()
                return RemoteModal.mailComposer(presenter: presenter) { mail in
                    if let draft {
                        mail = draft
                    } else {
                        mail.to = ["support@example.com"]
                        mail.subject = "Hello"
                        mail.body = "Hello World!"
                    }
                }
                .map { result in
                    switch result.status {
                    case .saved:
                        drafts.keep(result.mail)
                        session.notify(
                            "Mail saved as a draft on the host: Mail opens it again on this screen for \(drafts.lifetimeWords), "
                                + "then it is deleted (sooner if the host restarts or the screen is away too long)",
                            level: .info)
                    case .sent:
                        drafts.clear()
                        session.notify("Mail sent", level: .success)
                    case .cancelled, .failed:
                        session.notify("Mail \(result.status.rawValue)", level: .info)
                    }
                }
                .asObservable()
                .catch { error in reportFailure(error, "Mail", to: [session]) }
            case .message:
                return RemoteModal.messageComposer(presenter: presenter) { message in
                    message.recipients = ["0639981337"]
                    message.body = "Hello World!"
                }
                .map { result in
                    session.notify(
                        "Message \(result.status.rawValue)", level: result.status == .sent ? .success : .info)
                }
                .asObservable()
                .catch { error in reportFailure(error, "Message", to: [session]) }
            }
        }
        .catch { error in reportFailure(error, "Contact", to: [session]) }
    }

}

/// `photo`: up to three photos, uploaded and checked, then a summary.
final class PhotoCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    private let maxBytes: Int

    init(session: Session, maxBytes: Int) {
        self.maxBytes = maxBytes
        super.init(session: session)
    }

    override func start() -> Observable<Void> {
        let session = self.session
        let maxBytes = self.maxBytes
        return RemoteModal.photoPicker(presenter: presenter) {
            $0.selectionLimit = 3
            $0.maxBytes = maxBytes
        }
        .map { files in
            // Nothing picked: the person cancelled (Cancel, Escape) or chose no file.
            guard !files.isEmpty else { return session.notify("Photos cancelled", level: .info) }
            let bytes = files.reduce(0) { $0 + $1.size }
            session.notify(
                "Received \(files.count) \(files.count == 1 ? "photo" : "photos"), \(readableSize(bytes))",
                level: .success)
        }
        .asObservable()
        .catch { error in reportFailure(error, "Photos", to: [session]) }
    }
}

/// `login`: OpenID Connect code flow through a host-served callback.
final class LoginCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    let login: OpenIDLogin

    init(session: Session, login: OpenIDLogin) {
        self.login = login
        super.init(session: session)
    }

    override func start() -> Observable<Void> {
        let session = self.session
        let presenter = self.presenter
        let login = self.login
        // A service slower than 2 s: a dialog says what is going on, with Cancel (the
        // discovery is dropped with it); it goes as soon as the discovery ends either way.
        let waiting = RemoteModal.alert(
            URL?.self, presenter: presenter, title: "Log in", message: "Contacting the sign-in service\u{2026}",
            actions: [.cancel(title: "Cancel", mapTo: nil)]
        )
        .delaySubscription(.seconds(2), scheduler: Self.timer)
        return login.authorizationEndpoint().asObservable().map { Optional($0) }
            .amb(waiting)
            .take(1)
            .flatMap { endpoint -> Observable<URL> in
                guard let endpoint else {
                    session.notify("Log in cancelled", level: .info)
                    return .empty()
                }
                return RemoteModal.webAuthenticationSession(presenter: presenter) { callback, state in
                    login.authorizeURL(endpoint: endpoint, callbackURL: callback, state: state)
                }
                .asObservable()
            }
            .map { url in
                let code = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                    .first { $0.name == "code" }?.value
                if code != nil {
                    session.notify("Logged in (code received)", level: .success)
                } else {
                    session.notify("Log in failed: no code in the callback", level: .error)
                }
            }
            .catch { error in
                if let words = error as? SignInServiceError {
                    session.notify("Log in is not possible right now. \(words.description)", level: .error)
                    return .empty()
                }
                if case RemoteModalError.invalidConfiguration(let reason) = error {
                    // The provider's address is not one a screen may open: the person is told
                    // so in plain words, the reason (never the address itself) goes to the log.
                    Logger(label: "demo.login").warning("Log in refused the sign-in service's address: \(reason)")
                    session.notify(
                        "Log in is not possible right now. The sign-in service gave an address this host "
                            + "does not open (a sign-in needs https). Tell whoever runs this screen.",
                        level: .error)
                    return .empty()
                }
                return reportFailure(error, "Log in", to: [session])
            }
    }

    /// Where the "Contacting the sign-in service" dialog's delay runs.
    private static let timer = SerialDispatchQueueScheduler(label: "remote-modal.login-wait")
}

/// Bytes as people read them, in units of 1,000 as both clients count: "1 byte",
/// "820 bytes", "34 kB", "9.4 MB" (one decimal below 100, none from 100).
func readableSize(_ bytes: Int) -> String {
    if bytes == 1 { return "1 byte" }
    if bytes < 1_000 { return "\(bytes) bytes" }
    let units = ["kB", "MB", "GB", "TB"]
    var value = Double(bytes) / 1_000
    var unit = 0
    while value >= 1_000, unit < units.count - 1 {
        value /= 1_000
        unit += 1
    }
    // Tenths, rounded half up as JavaScript's toFixed does for these values.
    let tenths = (value * 10).rounded(.toNearestOrAwayFromZero)
    if value < 100 {
        if tenths >= 10_000, unit < units.count - 1 { return "1 \(units[unit + 1])" }
        let whole = Int(tenths) / 10
        let tenth = Int(tenths) % 10
        return tenth == 0 ? "\(whole) \(units[unit])" : "\(whole).\(tenth) \(units[unit])"
    }
    let rounded = Int(value.rounded(.toNearestOrAwayFromZero))
    if rounded >= 1_000, unit < units.count - 1 { return "1 \(units[unit + 1])" }
    return "\(rounded) \(units[unit])"
}
