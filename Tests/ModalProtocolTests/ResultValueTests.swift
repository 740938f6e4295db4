import ModalProtocol
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
}
