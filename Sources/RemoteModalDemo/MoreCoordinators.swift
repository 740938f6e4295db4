import Foundation
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive

/// `contact`: an action sheet, then a mail or message composer.
final class ContactCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    private enum Choice: Sendable {
        case mail, message
    }

    override func start() -> Observable<Void> {
        let session = self.session
        let presenter = self.presenter
        return RemoteModal.actionSheet(
            Choice?.self, presenter: presenter, source: "contact", title: "Contact us",
            actions: [
                .default(title: "Mail", mapTo: .mail), .default(title: "Message", mapTo: .message),
                .cancel(title: "Cancel", mapTo: nil),
            ]
        )
        .compactMap { $0 }
        .flatMap { choice -> Observable<Void> in
            switch choice {
            case .mail:
                return RemoteModal.mailComposer(presenter: presenter) { mail in
                    mail.to = ["support@example.com"]
                    mail.subject = "Hello"
                    mail.body = "Hello World!"
                }
                .map { result in
                    session.notify("Mail \(result.status.rawValue)", level: result.status == .sent ? .success : .info)
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
            session.notify("Received \(files.count) photo(s), \(bytes) bytes", level: .success)
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
        return login.authorizationEndpoint()
            .flatMap { endpoint in
                RemoteModal.webAuthenticationSession(presenter: presenter) { callback, state in
                    login.authorizeURL(endpoint: endpoint, callbackURL: callback, state: state)
                }
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
            .asObservable()
            .catch { error in reportFailure(error, "Log in", to: [session]) }
    }
}
