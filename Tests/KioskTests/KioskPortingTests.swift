import Foundation
import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol
import Testing

private let invoiceHTML =
    "<p>Hello &amp; welcome,</p><p>see <a href=\"https://example.com/terms\">our terms</a>.</p>"

private func showing(_ modal: ModalDescription) -> Kiosk { welcomed(modal) }

private func screen(_ model: Kiosk, width: Int = 100, height: Int = 40) -> String {
    KioskScreen.lines(model, width: width, height: height).joined(separator: "\n")
}

private func type(_ text: String, into model: inout Kiosk) {
    for character in text { _ = model.press(.character(character)) }
}

private func erase(_ count: Int, in model: inout Kiosk) {
    for _ in 0..<count { _ = model.press(.backspace) }
}

@Suite("Kiosk: what the wire carries since version 1")
struct KioskPortingTests {
    @Test func textFieldConfigurationMasksAndHints() {
        let alert = ModalDescription.alert(
            title: "Verify", message: nil,
            textFields: [
                TextFieldSpec(kind: .plain, placeholder: "code", keyboard: .numeric, contentType: "one-time-code"),
                TextFieldSpec(kind: .plain, placeholder: "PIN", isSecureTextEntry: true),
                TextFieldSpec(kind: .password, placeholder: "shown", isSecureTextEntry: false),
            ],
            actions: [ActionSpec(title: "OK")])
        var model = showing(alert)
        type("123", into: &model)
        _ = model.press(.tab)
        type("9876", into: &model)
        _ = model.press(.tab)
        type("visible", into: &model)
        let text = screen(model)
        #expect(text.contains("code (one-time code, digits): 123"))
        #expect(text.contains("PIN: ****"))
        #expect(!text.contains("9876"))
        #expect(text.contains("shown: visible"))
    }

    @Test func anHTMLMailIsReadableTextWithItsAttachmentsAndSender() {
        let mail = ModalDescription.mailComposer(
            to: ["a@example.com"], cc: [], bcc: [], subject: "Invoice",
            body: invoiceHTML, isHTML: true,
            options: MailOptions(
                from: "billing@example.com",
                attachments: [
                    MailAttachment(name: "invoice.txt", mimeType: "text/plain", base64: "SW52b2ljZSAxMjM0OiAxMiBFVVIK"),
                    MailAttachment(
                        name: "photo.jpg", mimeType: "image/jpeg", base64: Data(count: 2_500).base64EncodedString()),
                ]))
        var model = showing(mail)
        let text = screen(model)
        #expect(text.contains("Attached: invoice.txt (21 B), photo.jpg (2.5 kB)"))
        #expect(text.contains("From: billing@example.com"))
        #expect(text.contains("| Hello & welcome,"))
        #expect(text.contains("| see our terms (https://example.com/terms)."))
        #expect(!text.contains("<p>") && !text.contains("&amp;"))
        // Sent untouched: the HTML goes back as the host wrote it, every attachment kept.
        var untouched = model
        for _ in 0..<7 { _ = untouched.press(.tab) }
        let sent = untouched.press(.enter)
        #expect(
            sent == [
                (.result(
                    id: "m1",
                    value: mail.resultValue(
                        .mail(
                            status: .sent, to: ["a@example.com"], cc: [], bcc: [], subject: "Invoice",
                            body: invoiceHTML, from: "billing@example.com",
                            attachments: ["invoice.txt", "photo.jpg"]))))
            ])
        // The person leaves photo.jpg out and changes the sender.
        for _ in 0..<3 { _ = model.press(.tab) }
        erase("billing@example.com".count, in: &model)
        type("ann@example.com", into: &model)
        for _ in 0..<3 { _ = model.press(.tab) }
        erase(", photo.jpg".count, in: &model)
        _ = model.press(.tab)
        guard case .result(_, let value) = model.press(.enter).first,
            case .mail(_, _, _, _, _, _, let from, let kept) = try? mail.validateResult(value)
        else {
            Issue.record("no mail result")
            return
        }
        #expect(from == "ann@example.com")
        #expect(kept == ["invoice.txt"])
    }

    @Test func aMessageSubjectIsShownEditedAndSentBack() throws {
        let message = ModalDescription.messageComposer(recipients: ["0639981337"], subject: "Greetings", body: "Hi")
        var model = showing(message)
        #expect(screen(model).contains("Subject: Greetings"))
        _ = model.press(.tab)
        type("!", into: &model)
        _ = model.press(.tab)
        _ = model.press(.tab)
        guard case .result(_, let value) = model.press(.enter).first else {
            Issue.record("no result")
            return
        }
        #expect(
            try message.validateResult(value)
                == .message(status: .sent, recipients: ["0639981337"], body: "Hi", subject: "Greetings!"))
        // Without a subject on the wire there is no Subject line and none is sent.
        let plain = showing(.messageComposer(recipients: [], subject: nil, body: ""))
        #expect(!screen(plain).contains("Subject"))
    }

    @Test func pickersShowTheirPromptWhatTheyAcceptAndNoLimitAsAnyNumber() {
        let photos = showing(
            .photoPicker(selectionLimit: 0, filter: ["image"], maxBytes: 10_485_760, prompt: "Photos of the damage"))
        let text = screen(photos)
        #expect(text.contains("Photos of the damage"))
        #expect(text.contains("Images only."))
        #expect(text.contains("Any number of files, 10.5 MB in all."))
        let media = screen(
            showing(.mediaPicker(types: ["audio"], allowsMultiple: false, maxBytes: 1_000, prompt: "A voice message")))
        #expect(media.contains("A voice message"))
        #expect(media.contains("Audio only."))
    }

    @Test func aFilterRefusalShowsTheHostsWordsOnceAndLetsThePersonPickOtherFiles() {
        var model = showing(.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 10_485_760))
        type("/tmp/notes.txt", into: &model)
        _ = model.press(.tab)
        #expect(model.press(.enter).isEmpty)
        #expect(model.picked.last?.paths == ["/tmp/notes.txt"])
        model.upload([PickedFileInfo(name: "notes.txt", mimeType: "text/plain", size: 100_000, sha256: "ab")])
        let refusal = "only images are accepted here: file 0 ('notes.txt') is text/plain"
        model.receive(.error(seq: 3, ProtocolError(.uploadInvalid, refusal, ref: "upload")))
        // The chunks already on their way are refused too; the first reason stays on screen.
        model.receive(.error(seq: 4, ProtocolError(.uploadInvalid, "file 0 must start at offset 0", ref: "upload")))
        let text = screen(model)
        // The file by its name: the host's "file 0" counts from 0, which a passer-by cannot know.
        let named = "only images are accepted here: \u{201C}notes.txt\u{201D} is text/plain"
        #expect(text.contains("The host did not take these files: \(named)"))
        #expect(!text.contains("file 0"))
        #expect(!text.contains("Uploading"), "a refused upload's progress line goes")
        #expect(!text.contains("must start at offset 0"))
        // Refused for what the file is: a retry would be refused again, so none is offered.
        #expect(text.contains("[2] Choose other files  <- Enter"))
        #expect(!text.contains("Try again"))
        #expect(model.press(.character("2")).isEmpty)
        #expect(model.current?.upload == nil)
        #expect(model.current?.focus == 0)
        #expect(model.current?.fields[0].error == named)
        erase("/tmp/notes.txt".count, in: &model)
        type("/tmp/cat.png", into: &model)
        _ = model.press(.tab)
        #expect(model.press(.enter).isEmpty)
        #expect(model.picked.last?.paths == ["/tmp/cat.png"])
    }
}

@Suite("Kiosk: HTML as readable text")
struct KioskHTMLTests {
    @Test func anEditedHTMLBodyGoesBackAsHTMLMadeFromTheText() throws {
        // A recipient: Send refuses a mail with none.
        let mail = ModalDescription.mailComposer(
            to: ["ann@example.com"], cc: [], bcc: [], subject: "", body: "<b>Hi</b>", isHTML: true)
        var model = showing(mail)
        for _ in 0..<4 { _ = model.press(.tab) }
        type(" <you> & me", into: &model)
        _ = model.press(.enter)
        type("bye", into: &model)
        _ = model.press(.tab)
        guard case .result(_, let value) = model.press(.enter).first,
            case .mail(_, _, _, _, _, let body, _, _) = try mail.validateResult(value)
        else {
            Issue.record("no mail result")
            return
        }
        #expect(body == "Hi &lt;you&gt; &amp; me<br>\nbye")
        #expect(KioskHTML.readableText(body) == "Hi <you> & me\nbye")
    }

    @Test(
        arguments: [
            ("<p>One</p><p>Two</p>", "One\n\nTwo"),
            ("a<br>b<br/>c", "a\nb\nc"),
            ("<ul><li>x</li><li>y</li></ul>", "- x\n- y"),
            ("Fish &amp; chips &lt;3 &#233;t&#xE9; &hellip;", "Fish & chips <3 été …"),
            ("<a href='https://e.x/a?b=1&amp;c=2'>here</a>", "here (https://e.x/a?b=1&c=2)"),
            ("<a href=\"https://e.x\">https://e.x</a>", "https://e.x"),
            ("<a href=\"mailto:ann@e.x\">ann@e.x</a>", "ann@e.x"),
            ("<style>p{color:red}</style><script>alert(1)</script>Hi<!-- secret -->!", "Hi!"),
            ("  lots   of\n\n  space  ", "lots of space"),
            ("bell\u{07}\u{1B}[31mred", "bell[31mred"),
            ("1 < 2 &unknown; done", "1 < 2 &unknown; done"),
        ])
    func readableText(html: String, text: String) {
        #expect(KioskHTML.readableText(html) == text)
    }
}
