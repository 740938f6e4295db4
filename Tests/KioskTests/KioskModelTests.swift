import Foundation
import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol
import Testing

@Suite("Kiosk model, screen, keys and scripts (no terminal needed)")
struct KioskModelTests {
    func model(with modal: ModalDescription? = nil) -> Kiosk { welcomed(modal) }

    @Test func numberKeysTapControls() {
        var model = model()
        #expect(model.press(.character("2")) == [(.event(control: "contact"))])
        #expect(model.press(.character("9")).isEmpty)
    }

    @Test func typingFillsFieldsSendsInputAndMasksPasswords() {
        var model = model(with: signIn)
        var effects: [ClientMessage] = []
        for character in "ann@x.io" { effects += model.press(.character(character)) }
        // The client core sends at most one input per 100 ms: the latest values when it runs out.
        model.run(model.machine.handle(.timerFired(.input(id: "m1"))))
        effects = model.sent
        #expect(effects.last == (.input(id: "m1", textFields: ["ann@x.io", ""])))
        _ = model.press(.enter)
        for character in "pw" { _ = model.press(.character(character)) }
        let screen = KioskScreen.lines(model, width: 80, height: 40).joined(separator: "\n")
        #expect(screen.contains("e-mail: ann@x.io"))
        #expect(screen.contains("password: **_"))
        #expect(!screen.contains("pw"))
    }

    @Test func disabledChoicesCannotBePickedUntilAnUpdate() {
        var model = model(with: signIn)
        _ = model.press(.tab)
        _ = model.press(.tab)
        #expect(model.press(.character("2")).isEmpty)
        model.receive(.update(seq: 3, id: "m1", actions: [true, true]))
        #expect(
            model.press(.character("2")) == [(.result(id: "m1", value: ["action": 1, "textFields": ["", ""]]))])
    }

    @Test func escapePicksCancel() {
        var model = model(with: signIn)
        #expect(model.press(.escape) == [(.result(id: "m1", value: ["action": 0, "textFields": ["", ""]]))])
    }

    @Test func resumedPresentDoesNotOpenTwiceAndDismissCloses() {
        var model = model(with: signIn)
        model.receive(.present(seq: 4, id: "m1", modal: signIn))
        #expect(model.modals.count == 1)
        model.receive(.dismiss(seq: 5, id: "m1", reason: .resolved))
        #expect(model.current == nil)
    }

    @Test func mailComposerSendsEditedContent() {
        var model = model(
            with: .mailComposer(
                to: ["support@example.com"], cc: [], bcc: [], subject: "Hello", body: "Hi", isHTML: false))
        for _ in 0..<4 { _ = model.press(.enter) }
        // The body takes new lines; Tab leaves it for the choices.
        for key in [Key.enter, .character("B"), .character("o"), .tab] { _ = model.press(key) }
        let effects = model.press(.character("3"))
        #expect(
            effects == [
                (.result(
                    id: "m1",
                    value: [
                        "status": "sent",
                        "mail": [
                            "to": ["support@example.com"], "cc": [], "bcc": [], "subject": "Hello",
                            "body": "Hi\nBo",
                        ],
                    ]))
            ])
    }

    @Test func screenFitsTheTerminal() {
        let lines = KioskScreen.lines(model(with: signIn), width: 20, height: 6)
        #expect(lines.count <= 6)
        #expect(lines.allSatisfy { $0.count <= 20 })
    }

    @Test func keyDecoder() {
        var decoder = KeyDecoder()
        #expect(
            decoder.feed([0x61, 0x0D, 0x1B, 0x5B, 0x41, 0x7F, 0x03]) == [
                .character("a"), .enter, .up, .backspace, .interrupt,
            ])
        #expect(decoder.feed([0xC3]) == [])
        #expect(decoder.feed([0xA9]) == [.character("é")])
    }
}
