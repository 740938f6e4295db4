import RemoteModalProtocol
import Testing

@Suite("Result values from typed answers")
struct ResultValueTests {
    static let cases: [(ModalDescription, ModalAnswer)] = [
        (
            .alert(
                title: "Sign in", message: nil,
                textFields: [TextFieldSpec(kind: .email), TextFieldSpec(kind: .password)],
                actions: [ActionSpec(title: "Cancel", style: .cancel), ActionSpec(title: "Sign In")]),
            .action(index: 1, textFields: ["ann@example.com", "pw"])
        ),
        (
            .actionSheet(
                title: "Country", message: nil, source: nil,
                actions: [ActionSpec(title: "France"), ActionSpec(title: "Japan")]),
            .action(index: 1, textFields: [])
        ),
        (
            .webAuthentication(url: "https://idp.example/auth", callbackURL: nil, callbackURLScheme: "demo"),
            .callbackURL("demo://done?code=1")
        ),
        (
            .mailComposer(to: ["a@b.c"], cc: [], bcc: [], subject: "Hi", body: "Hello", isHTML: false),
            .mail(status: .sent, to: ["a@b.c", "d@e.f"], cc: ["g@h.i"], bcc: [], subject: "Hi", body: "Hello there")
        ),
        (
            .messageComposer(recipients: ["0639981337"], subject: nil, body: "Hi"),
            .message(status: .cancelled, recipients: ["0639981337"], body: "Hi")
        ),
        (
            .photoPicker(selectionLimit: 2, filter: ["image"], maxBytes: 1_000),
            .picked([
                PickedItem(name: "cat.png", mimeType: "image/png", size: 120, sha256: String(repeating: "a", count: 64))
            ])
        ),
        (.mediaPicker(types: ["audio"], allowsMultiple: true, maxBytes: 1_000), .picked([])),
        (
            invoiceMail,
            .mail(
                status: .saved, to: [], cc: [], bcc: [], subject: "Re", body: "B", from: "me@example.com",
                attachments: [])
        ),
        (greetingMessage, .message(status: .sent, recipients: ["1"], body: "Hi", subject: "Edited subject")),
    ]

    /// Whatever a Swift client builds with `resultValue` is accepted by the host's check and
    /// means the same answer.
    @Test(arguments: 0..<cases.count)
    func resultValueRoundTripsThroughValidation(_ index: Int) throws {
        let (description, answer) = Self.cases[index]
        #expect(try description.validateResult(description.resultValue(answer)) == answer)
    }

    @Test func actionSheetsSendNoTextFields() {
        let sheet = ModalDescription.actionSheet(
            title: nil, message: nil, source: nil, actions: [ActionSpec(title: "A")])
        #expect(sheet.resultValue(.action(index: 0, textFields: [])) == ["action": 0])
    }

    @Test func aMessagesSubjectIsKeptInTheResult() throws {
        let value: JSONValue = ["status": "sent", "message": ["recipients": [], "body": "b", "subject": "S2"]]
        #expect(
            try greetingMessage.validateResult(value)
                == .message(status: .sent, recipients: [], body: "b", subject: "S2"))
        // An older client that does not send it: nil, the API keeps the presented subject.
        let old: JSONValue = ["status": "sent", "message": ["recipients": [], "body": "b"]]
        #expect(try greetingMessage.validateResult(old) == .message(status: .sent, recipients: [], body: "b"))
    }

    @Test func aMailResultNamesOnlyItsOwnAttachmentsOnce() {
        let foreign: JSONValue = ["status": "sent", "mail": ["attachments": ["passwd"]]]
        #expect(throws: ProtocolError.self) { try invoiceMail.validateResult(foreign) }
        let twice: JSONValue = ["status": "sent", "mail": ["attachments": ["invoice.txt", "invoice.txt"]]]
        #expect(throws: ProtocolError.self) { try invoiceMail.validateResult(twice) }
        let kept: JSONValue = ["status": "sent", "mail": ["attachments": ["invoice.txt"]]]
        guard case .mail(_, _, _, _, _, _, _, let names) = try? invoiceMail.validateResult(kept) else {
            Issue.record("the mail result was refused")
            return
        }
        #expect(names == ["invoice.txt"])
    }
}

@Suite("Optional fields added since version 1")
struct OptionalFieldTests {
    @Test func unsetOptionsLeaveTheJSONAsBefore() {
        let mail = ModalDescription.mailComposer(to: [], cc: [], bcc: [], subject: "", body: "", isHTML: false)
        let text = HostMessage.present(seq: 1, id: "m1", modal: mail).encode()
        #expect(!text.contains("from") && !text.contains("attachments"))
        let picker = HostMessage.present(
            seq: 1, id: "m1", modal: .photoPicker(selectionLimit: 1, filter: [], maxBytes: 1)
        ).encode()
        #expect(!picker.contains("prompt"))
        let auth = HostMessage.present(
            seq: 1, id: "m1", modal: .webAuthentication(url: "https://a", callbackURL: nil, callbackURLScheme: "x")
        ).encode()
        #expect(!auth.contains("prefersEphemeral") && !auth.contains("additionalHeaderFields"))
    }

    @Test func attachmentSizesAreTheirDecodedBytes() {
        #expect(MailAttachment(name: "a", mimeType: "x", base64: "SW52b2ljZSAxMjM0OiAxMiBFVVIK").size == 21)
        #expect(MailAttachment(name: "a", mimeType: "x", base64: "YQ==").size == 1)
        #expect(MailAttachment(name: "a", mimeType: "x", base64: "YWI=").size == 2)
        #expect(MailAttachment(name: "a", mimeType: "x", base64: "").size == 0)
        #expect(!MailAttachment(name: "a", mimeType: "x", base64: "Y=Q=").isWellFormed)
        #expect(!MailAttachment(name: "a", mimeType: "x", base64: "YQ").isWellFormed)
        #expect(MailAttachment(name: "a", mimeType: "x", base64: "YWI=").isWellFormed)
    }

    @Test func aClientRefusesAttachmentsThatAreNotBase64OrTooLarge() {
        let bad =
            #"{"type":"present","seq":1,"id":"m1","modal":{"kind":"mailComposer","attachments":[{"name":"a","mimeType":"x","data":"!!!!"}]}}"#
        #expect(throws: ProtocolError.self) { try HostMessage.decode(bad) }
        // Two attachments of 400 KiB: each within the string limit, 800 KiB together.
        let part = String(repeating: "A", count: 400 * 1_024 / 3 * 4)
        let attachment = #"{"name":"a","mimeType":"x","data":""# + part + #""}"#
        let large =
            #"{"type":"present","seq":1,"id":"m1","modal":{"kind":"mailComposer","attachments":["#
            + attachment + "," + attachment + "]}}"
        #expect {
            try HostMessage.decode(large)
        } throws: { error in
            (error as? ProtocolError)?.message.contains("attachments add up to more than 786432 bytes") == true
        }
        // One of them is fine.
        let one =
            #"{"type":"present","seq":1,"id":"m1","modal":{"kind":"mailComposer","attachments":["#
            + attachment + "]}}"
        #expect(throws: Never.self) { try HostMessage.decode(one) }
    }
}
