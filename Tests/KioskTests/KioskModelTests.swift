import Foundation
import RemoteModalKiosk
import RemoteModalProtocol
import Testing

let signIn = ModalDescription.alert(
    title: "Sign in", message: "Please sign in",
    textFields: [
        TextFieldSpec(kind: .email, placeholder: "e-mail"), TextFieldSpec(kind: .password, placeholder: "password"),
    ],
    actions: [
        ActionSpec(title: "Cancel", style: .cancel), ActionSpec(title: "Sign In", enabled: false, preferred: true),
    ])

@Suite("Kiosk model, screen, keys and scripts (no terminal needed)")
struct KioskModelTests {
    func model(with modal: ModalDescription? = nil) -> KioskModel {
        var model = KioskModel(name: "lobby-1", group: "lobby")
        model.receive(.welcome(session: "s", resumed: false, retentionSeconds: 60))
        model.receive(
            .controls(
                seq: 1,
                items: [ControlItem(id: "signIn", title: "Sign in"), ControlItem(id: "contact", title: "Contact us")]))
        if let modal { model.receive(.present(seq: 2, id: "m1", modal: modal)) }
        return model
    }

    @Test func numberKeysTapControls() {
        var model = model()
        #expect(model.press(.character("2")) == [.send(.event(control: "contact"))])
        #expect(model.press(.character("9")).isEmpty)
    }

    @Test func typingFillsFieldsSendsInputAndMasksPasswords() {
        var model = model(with: signIn)
        var effects: [KioskEffect] = []
        for character in "ann@x.io" { effects += model.press(.character(character)) }
        #expect(effects.last == .send(.input(id: "m1", textFields: ["ann@x.io", ""])))
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
            model.press(.character("2")) == [.send(.result(id: "m1", value: ["action": 1, "textFields": ["", ""]]))])
    }

    @Test func escapePicksCancel() {
        var model = model(with: signIn)
        #expect(model.press(.escape) == [.send(.result(id: "m1", value: ["action": 0, "textFields": ["", ""]]))])
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
                .send(
                    .result(
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

    @Test func scriptTapsAnswersAndWaitsForStatus() throws {
        let script = try JSONDecoder().decode(
            KioskScript.self,
            from: Data(
                #"[{"tap":"signIn"},{"expect":"Sign in","fill":["a@b.c","pw"],"pick":"Sign In"},{"status":"Signed in"}]"#
                    .utf8))
        var runner = ScriptRunner(script: script)
        var model = model()
        #expect(runner.advance(&model).effects == [.send(.event(control: "signIn"))])
        model.receive(.present(seq: 2, id: "m1", modal: signIn))
        model.receive(.update(seq: 3, id: "m1", actions: [true, true]))
        let answered = runner.advance(&model).effects
        #expect(answered.last == .send(.result(id: "m1", value: ["action": 1, "textFields": ["a@b.c", "pw"]])))
        #expect(!runner.finished)
        model.receive(.status(seq: 4, level: .success, text: "Signed in as a@b.c"))
        _ = runner.advance(&model)
        #expect(runner.finished)
    }
}

@Suite("Kiosk script waits")
struct KioskScriptWaitTests {
    @Test func waitStepEndsAfterItsTime() throws {
        let script = try JSONDecoder().decode(KioskScript.self, from: Data(#"[{"wait": 5}, {"tap": "x"}]"#.utf8))
        var runner = ScriptRunner(script: script)
        var model = KioskModel(name: "k", group: nil)
        model.receive(.controls(seq: 1, items: [ControlItem(id: "x", title: "X")]))
        let start = Date()
        #expect(runner.advance(&model, now: start).effects.isEmpty)
        #expect(runner.advance(&model, now: start.addingTimeInterval(4)).effects.isEmpty)
        #expect(runner.advance(&model, now: start.addingTimeInterval(5)).effects == [.send(.event(control: "x"))])
        #expect(runner.finished)
    }
}
