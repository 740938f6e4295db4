import Foundation
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive

/// `options` (only with `--demo-options`): an action sheet leading to one modal per
/// optional field a host may send (docs/protocol.md, "Optional fields added since version
/// 1"), each ending in a status that names what came back, for the browser and kiosk
/// suites to check against a real host.
final class OptionsCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    private enum Choice: Sendable {
        case htmlMail, hostileMail, subject, photos, fields
    }

    /// The HTML body of the `HTML mail` choice.
    static let htmlBody = """
        <h2>Invoice 1234</h2><p>Hello &amp; <b>welcome</b>,</p>\
        <p>see <a href="https://example.com/terms">our terms</a> or <a href="mailto:help@example.com">write to us</a>.</p>\
        <ul><li>Amount: <strong>12 EUR</strong></li><li>Due: <em>in 30 days</em></li></ul>\
        <blockquote>Thank you for your order.</blockquote>
        """

    /// A body that tries every way to run script or load something; a client must show it inert.
    static let hostileBody = """
        <p>Safe text</p><img src="x" onerror="window.__xss='img'">\
        <script>window.__xss='script'</script>\
        <p><a href="javascript:window.__xss='link'">click me</a> \
        <a href=" JaVaScRiPt:window.__xss='spaced'">or me</a></p>\
        <iframe src="javascript:window.__xss='iframe'"></iframe>\
        <p onclick="window.__xss='handler'" style="background:url(https://example.invalid/x.png)">styled</p>\
        <svg onload="window.__xss='svg'"><script>window.__xss='svg-script'</script></svg>\
        <style>body{display:none}</style><form action="https://example.invalid"><input name="q"></form>\
        <!-- <script>window.__xss='comment'</script> -->
        """

    /// The attachment of the `HTML mail` choice: 12,595 bytes ("12 KB").
    static let invoice = Data(String(repeating: "Invoice 1234: 12 EUR\n", count: 600).utf8.prefix(12_595))

    override func start() -> Observable<Void> {
        let session = self.session
        let presenter = self.presenter
        return RemoteModal.actionSheet(
            Choice?.self, presenter: presenter, source: "options", title: "Optional fields",
            actions: [
                .default(title: "HTML mail", mapTo: .htmlMail), .default(title: "Hostile mail", mapTo: .hostileMail),
                .default(title: "Message with subject", mapTo: .subject),
                .default(title: "Any number of photos", mapTo: .photos),
                .default(title: "Configured fields", mapTo: .fields), .cancel(title: "Cancel", mapTo: nil),
            ]
        )
        .compactMap { $0 }
        .flatMap { choice -> Observable<Void> in
            switch choice {
            case .htmlMail: return Self.mail(body: Self.htmlBody, attach: true, presenter, session)
            case .hostileMail: return Self.mail(body: Self.hostileBody, attach: false, presenter, session)
            case .subject: return Self.message(presenter, session)
            case .photos: return Self.photos(presenter, session)
            case .fields: return Self.fields(presenter, session)
            }
        }
        .catch { error in reportFailure(error, "Options", to: [session]) }
    }

    private static func mail(
        body: String, attach: Bool, _ presenter: Presenter, _ session: Session
    ) -> Observable<Void> {
        RemoteModal.mailComposer(presenter: presenter) { mail in
            mail.to = ["support@example.com"]
            mail.subject = "Your invoice"
            mail.body = body
            mail.isHTML = true
            mail.from = "billing@example.com"
            if attach { mail.addAttachmentData(invoice, mimeType: "text/plain", fileName: "invoice.txt") }
        }
        .map { result in
            let mail = result.mail
            let kept = mail.attachments.map(\.fileName)
            let edited = mail.body == body ? "untouched" : "edited: \(mail.body)"
            session.notify(
                "Mail \(result.status.rawValue) from \(mail.from ?? "nobody"); attachments: "
                    + "\(kept.isEmpty ? "none" : kept.joined(separator: ", ")); body \(edited)",
                level: .info)
        }
        .asObservable()
    }

    private static func message(_ presenter: Presenter, _ session: Session) -> Observable<Void> {
        RemoteModal.messageComposer(presenter: presenter) { message in
            message.recipients = ["0639981337"]
            message.subject = "Order 1234"
            message.body = "Where is my parcel?"
        }
        .map { result in
            session.notify(
                "Message \(result.status.rawValue) with subject '\(result.subject ?? "none")'", level: .info)
        }
        .asObservable()
    }

    private static func photos(_ presenter: Presenter, _ session: Session) -> Observable<Void> {
        RemoteModal.photoPicker(presenter: presenter) { picker in
            picker.selectionLimit = 0
            picker.filter = ["image"]
            picker.prompt = "Photos of the damage"
        }
        .map { files in
            session.notify(
                "Options photos: \(files.count) file(s): \(files.map(\.name).joined(separator: ", "))", level: .info)
        }
        .asObservable()
        .catch { error in
            if case RemoteModalError.cancelled = error {
                session.notify("Options photos cancelled", level: .info)
                return .empty()
            }
            return .error(error)
        }
    }

    private static func fields(_ presenter: Presenter, _ session: Session) -> Observable<Void> {
        RemoteModal.alert(
            [String]?.self, presenter: presenter, title: "Verify", message: "Enter the code we sent you",
            textFields: [
                .plain { field in
                    field.placeholder = "code"
                    field.keyboard = .numeric
                    field.autocapitalization = TextFieldAutocapitalization.none
                    field.contentType = "one-time-code"
                    field.isSecureTextEntry = false
                },
                .plain { field in
                    field.placeholder = "PIN"
                    field.isSecureTextEntry = true
                },
                .plain { field in
                    field.placeholder = "full name"
                    field.autocapitalization = .words
                    field.contentType = "name"
                },
                .plain { field in
                    field.placeholder = "phone"
                    field.keyboard = .phone
                    field.contentType = "tel"
                },
            ],
            actions: [
                .cancel(title: "Cancel", mapTo: nil),
                DialogAction.default(title: "Verify", map: { $0 }).preferred(),
            ]
        )
        .map { fields in
            guard let fields else { return session.notify("Verify cancelled", level: .info) }
            session.notify(
                "Verified code \(fields[0]), PIN of \(fields[1].count) digit(s), name \(fields[2]), phone \(fields[3])",
                level: .info)
        }
    }
}
