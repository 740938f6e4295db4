import Foundation
import ModalProtocol
import Reactive

extension RemoteModal {
    /// Presents a mail composer.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Fills in the mail.
    /// - Returns: The outcome; fails with `unsupported` when the client cannot compose mail.
    public static func mailComposer(
        presenter: Presenter, timeout: Duration? = nil, configuration: (inout MailConfiguration) -> Void = { _ in }
    ) -> Single<MailComposeResult> {
        var configured = MailConfiguration()
        configuration(&configured)
        let mail = configured
        let description = ModalDescription.mailComposer(
            to: mail.to, cc: mail.cc, bcc: mail.bcc, subject: mail.subject, body: mail.body, isHTML: mail.isHTML)
        return present(description, presenter: presenter, timeout: timeout).map { answer, _ in
            guard case .mail(let status, let to, let cc, let bcc, let subject, let body) = answer else {
                throw RemoteModalError.failed("unexpected answer")
            }
            var edited = MailConfiguration()
            (edited.to, edited.cc, edited.bcc, edited.subject, edited.body, edited.isHTML) =
                (to, cc, bcc, subject, body, mail.isHTML)
            return MailComposeResult(status: status, mail: edited)
        }
    }

    /// Presents a message composer.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Fills in the message.
    /// - Returns: The outcome; fails with `unsupported` when the client cannot send messages.
    public static func messageComposer(
        presenter: Presenter, timeout: Duration? = nil, configuration: (inout MessageConfiguration) -> Void = { _ in }
    ) -> Single<MessageComposeResult> {
        var message = MessageConfiguration()
        configuration(&message)
        let description = ModalDescription.messageComposer(
            recipients: message.recipients, subject: message.subject, body: message.body)
        return present(description, presenter: presenter, timeout: timeout).map { answer, _ in
            guard case .message(let status, let recipients, let body) = answer else {
                throw RemoteModalError.failed("unexpected answer")
            }
            return MessageComposeResult(status: status, recipients: recipients, body: body)
        }
    }

    /// Presents a photo picker; the files arrive uploaded, size- and hash-checked.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Limits and filter.
    /// - Returns: The picked files (empty: the person picked nothing).
    public static func photoPicker(
        presenter: Presenter, timeout: Duration? = nil,
        configuration: (inout PhotoPickerConfiguration) -> Void = { _ in }
    ) -> Single<[PickedFile]> {
        var picker = PhotoPickerConfiguration()
        configuration(&picker)
        let description = ModalDescription.photoPicker(
            selectionLimit: max(0, picker.selectionLimit), filter: picker.filter, maxBytes: picker.maxBytes)
        return pickFiles(description, presenter, timeout)
    }

    /// Presents a media picker; the files arrive uploaded, size- and hash-checked.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Types and limits.
    /// - Returns: The picked files (empty: the person picked nothing).
    public static func mediaPicker(
        presenter: Presenter, timeout: Duration? = nil,
        configuration: (inout MediaPickerConfiguration) -> Void = { _ in }
    ) -> Single<[PickedFile]> {
        var picker = MediaPickerConfiguration()
        configuration(&picker)
        let description = ModalDescription.mediaPicker(
            types: picker.types, allowsMultiple: picker.allowsMultiple, maxBytes: picker.maxBytes)
        return pickFiles(description, presenter, timeout)
    }

    private static func pickFiles(_ description: ModalDescription, _ presenter: Presenter, _ timeout: Duration?)
        -> Single<[PickedFile]>
    {
        Single.create { report in
            presenter.core.present(
                presenter, description, rules: [], timeout: timeout,
                callbacks: PresentationCallbacks(
                    answered: { report(.success($0.files)) }, failed: { report(.failure($0)) }))
        }
    }

    /// A web authentication session for a native client: the client opens `url` and
    /// answers with the URL its browser was sent to under `callbackURLScheme`.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - url: The authorization URL.
    ///   - callbackURLScheme: The scheme of the callback (`myapp`).
    ///   - timeout: Dismiss with `timeout` after this long.
    /// - Returns: The callback URL; `cancelled` when the person closes the window.
    public static func webAuthenticationSession(
        presenter: Presenter, url: URL, callbackURLScheme: String, timeout: Duration? = nil
    ) -> Single<URL> {
        let description = ModalDescription.webAuthentication(
            url: url.absoluteString, callbackURL: nil, callbackURLScheme: callbackURLScheme)
        return present(description, presenter: presenter, timeout: timeout).map { answer, _ in
            guard case .callbackURL(let text) = answer, let callback = URL(string: text) else {
                throw RemoteModalError.failed("unexpected answer")
            }
            return callback
        }
    }

    /// A web authentication session whose callback the host serves itself: the host mints
    /// a single-use unguessable nonce and an OAuth `state`, serves
    /// `/auth/callback/NONCE`, checks `state`, and resolves with the full callback URL.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - authorizeURL: Builds the authorization URL from the callback URL and the state.
    /// - Returns: The callback URL with the provider's parameters; `cancelled` when the
    ///   person closes the window.
    public static func webAuthenticationSession(
        presenter: Presenter, timeout: Duration? = nil,
        authorizeURL: @escaping @Sendable (_ callbackURL: URL, _ state: String) -> URL
    ) -> Single<URL> {
        Single.create { report in
            presenter.core.presentWebAuthentication(presenter, timeout: timeout, authorizeURL: authorizeURL) { result in
                report(result)
            }
        }
    }
}
