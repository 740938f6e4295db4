import Foundation
import RemoteModalProtocol
import RemoteModalReactive

extension RemoteModal {
    /// Presents a mail composer.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Fills in the mail.
    /// - Returns: The outcome; fails with `unsupported` when the client cannot compose mail.
    public static func mailComposer(
        presenter: Presenter = .current, timeout: Duration? = nil,
        configuration: (inout MailConfiguration) -> Void = { _ in }
    ) -> Single<MailComposeResult> {
        var configured = MailConfiguration()
        configuration(&configured)
        let mail = configured
        let options: MailOptions
        switch mailOptions(mail) {
        case .success(let checked): options = checked
        case .failure(let error): return .error(error)
        }
        let description = ModalDescription.mailComposer(
            to: mail.to, cc: mail.cc, bcc: mail.bcc, subject: mail.subject, body: mail.body, isHTML: mail.isHTML,
            options: options)
        return present(description, presenter: presenter, timeout: timeout).map { answer, _ in
            guard case .mail(let status, let to, let cc, let bcc, let subject, let body, let from, let kept) = answer
            else {
                throw RemoteModalError.failed("unexpected answer")
            }
            var edited = mail
            (edited.to, edited.cc, edited.bcc, edited.subject, edited.body) = (to, cc, bcc, subject, body)
            if let from { edited.from = from }
            // Absent: the client did not say (an older client), so the mail kept them all.
            if let kept { edited.attachments = mail.attachments.filter { kept.contains($0.fileName) } }
            return MailComposeResult(status: status, mail: edited)
        }
    }

    /// The wire form of a mail's sending address and attachments, or why it cannot be sent.
    static func mailOptions(_ mail: MailConfiguration) -> Result<MailOptions, RemoteModalError> {
        let total = mail.attachments.reduce(0) { $0 + $1.data.count }
        guard total <= MailAttachment.maxTotalBytes else {
            return .failure(
                .invalidConfiguration(
                    "the mail's attachments add up to \(total) bytes; at most \(MailAttachment.maxTotalBytes)"
                        + " (768 KiB) can be sent to a client"))
        }
        let names = mail.attachments.map(\.fileName)
        guard Set(names).count == names.count, !names.contains("") else {
            return .failure(.invalidConfiguration("the mail's attachments need distinct, non-empty file names"))
        }
        return .success(
            MailOptions(
                from: mail.from,
                attachments: mail.attachments.map {
                    MailAttachment(name: $0.fileName, mimeType: $0.mimeType, base64: $0.data.base64EncodedString())
                }))
    }

    /// Presents a message composer.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Fills in the message.
    /// - Returns: The outcome; fails with `unsupported` when the client cannot send messages.
    public static func messageComposer(
        presenter: Presenter = .current, timeout: Duration? = nil,
        configuration: (inout MessageConfiguration) -> Void = { _ in }
    ) -> Single<MessageComposeResult> {
        var configured = MessageConfiguration()
        configuration(&configured)
        let message = configured
        let description = ModalDescription.messageComposer(
            recipients: message.recipients, subject: message.subject, body: message.body)
        return present(description, presenter: presenter, timeout: timeout).map { answer, _ in
            guard case .message(let status, let recipients, let body, let subject) = answer else {
                throw RemoteModalError.failed("unexpected answer")
            }
            return MessageComposeResult(
                status: status, recipients: recipients, body: body, subject: subject ?? message.subject)
        }
    }

    /// Presents a photo picker; the files arrive uploaded, size- and hash-checked.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Limits and filter.
    /// - Returns: The picked files; empty when the person picked nothing or cancelled
    ///   (Cancel, Escape, closing the picker), as upstream's pickers emit an empty list.
    public static func photoPicker(
        presenter: Presenter = .current, timeout: Duration? = nil,
        configuration: (inout PhotoPickerConfiguration) -> Void = { _ in }
    ) -> Single<[PickedFile]> {
        var picker = PhotoPickerConfiguration()
        configuration(&picker)
        let description = ModalDescription.photoPicker(
            selectionLimit: max(0, picker.selectionLimit), filter: picker.filter?.kinds ?? [],
            maxBytes: picker.maxBytes,
            prompt: picker.prompt)
        return pickFiles(description, presenter, timeout)
    }

    /// Presents a media picker; the files arrive uploaded, size- and hash-checked.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: Types and limits.
    /// - Returns: The picked files; empty when the person picked nothing or cancelled
    ///   (Cancel, Escape, closing the picker), as upstream's pickers emit an empty list.
    public static func mediaPicker(
        presenter: Presenter = .current, timeout: Duration? = nil,
        configuration: (inout MediaPickerConfiguration) -> Void = { _ in }
    ) -> Single<[PickedFile]> {
        var picker = MediaPickerConfiguration()
        configuration(&picker)
        let description = ModalDescription.mediaPicker(
            types: picker.types.names, allowsMultiple: picker.allowsMultiple, maxBytes: picker.maxBytes,
            prompt: picker.prompt)
        return pickFiles(description, presenter, timeout)
    }

    private static func pickFiles(
        _ description: ModalDescription, _ presenter: Presenter = .current, _ timeout: Duration?
    )
        -> Single<[PickedFile]>
    {
        Single.create { report in
            presenter.present(
                description, rules: [], timeout: timeout,
                callbacks: PresentationCallbacks(
                    answered: { report(.success($0.files)) },
                    failed: { error in
                        // A cancelled picker picked nothing: a value, as upstream's is.
                        if case RemoteModalError.cancelled = error {
                            report(.success([]))
                        } else {
                            report(.failure(error))
                        }
                    }))
        }
    }

    /// A web authentication session for a native client: the client opens `url` and
    /// answers with the URL its browser was sent to under `callbackURLScheme`.
    /// - Parameters:
    ///   - presenter: Where to present.
    ///   - url: The authorization URL.
    ///   - callbackURLScheme: The scheme of the callback (`myapp`).
    ///   - timeout: Dismiss with `timeout` after this long.
    ///   - configuration: An ephemeral session, extra header fields (for clients that
    ///     can honour them).
    /// - Returns: The callback URL; `cancelled` when the person closes the window;
    ///   `invalidConfiguration` for a `url` that is not `https` (or `http` on loopback).
    public static func webAuthenticationSession(
        presenter: Presenter = .current, url: URL, callbackURLScheme: String, timeout: Duration? = nil,
        configuration: (inout WebAuthenticationConfiguration) -> Void = { _ in }
    ) -> Single<URL> {
        var options = WebAuthenticationConfiguration()
        configuration(&options)
        if let invalid = invalidHeaderField(options) { return .error(invalid) }
        if let refused = AuthenticationURLPolicy.refusal(url) { return .error(refused) }
        let description = ModalDescription.webAuthentication(
            url: url.absoluteString, callbackURL: nil, callbackURLScheme: callbackURLScheme, options: options)
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
    ///   - configuration: An ephemeral session, extra header fields (for clients that
    ///     can honour them).
    ///   - authorizeURL: Builds the authorization URL from the callback URL and the state.
    /// - Returns: The callback URL with the provider's parameters; `cancelled` when the
    ///   person closes the window; `invalidConfiguration` when `authorizeURL` gives a URL
    ///   that is not `https` (or `http` on loopback), for example from a hostile discovery
    ///   document.
    public static func webAuthenticationSession(
        presenter: Presenter = .current, timeout: Duration? = nil,
        configuration: (inout WebAuthenticationConfiguration) -> Void = { _ in },
        authorizeURL: @escaping @Sendable (_ callbackURL: URL, _ state: String) -> URL
    ) -> Single<URL> {
        var configured = WebAuthenticationConfiguration()
        configuration(&configured)
        if let invalid = invalidHeaderField(configured) { return .error(invalid) }
        let options = configured
        return Single.create { report in
            guard let resolved = presenter.resolved(), let core = resolved.core else {
                report(.failure(RemoteModalError.missingPresenter))
                return Disposables.create()
            }
            return core.presentWebAuthentication(
                resolved, timeout: timeout, options: options, authorizeURL: authorizeURL
            ) { result in
                report(result)
            }
        }
    }

    /// A header field name must be an HTTP token and no value may hold a line break.
    static func invalidHeaderField(_ options: WebAuthenticationOptions) -> RemoteModalError? {
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for (name, value) in options.additionalHeaderFields.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, name.allSatisfy(token.contains) else {
                return .invalidConfiguration("'\(name)' is not an HTTP header field name")
            }
            // Scalars, not characters: "\r\n" is one Character.
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                return .invalidConfiguration("the value of header field '\(name)' holds a line break")
            }
        }
        return nil
    }
}
