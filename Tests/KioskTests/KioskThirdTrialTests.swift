import RemoteModalKiosk
import RemoteModalProtocol
import Testing

/// Issue 32's third cold trial: one Ctrl-C closed an unattended kiosk.
@Suite("Kiosk: the third cold trial")
struct KioskThirdTrialTests {
    @Test func oneCtrlCSaysHowAndASecondWithinTheWindowQuits() {
        var model = KioskModel(name: "lobby-1", group: "lobby")
        #expect(model.press(.interrupt, now: 10).isEmpty)
        #expect(model.banner == "Press Ctrl-C again within 3 seconds to close the kiosk.")
        #expect(model.press(.interrupt, now: 14).isEmpty, "past the window it asks again")
        #expect(model.press(.interrupt, now: 15) == [.quit])
    }

    @Test func aLockedKioskNeverQuitsFromTheKeyboard() {
        var model = KioskModel(name: "lobby-1", group: "lobby")
        model.quitKey = .never
        for second in 0..<5 { #expect(model.press(.interrupt, now: Double(second) / 10).isEmpty) }
        #expect(model.banner == "This kiosk does not close from the keyboard.")
        #expect(!KioskScreen.lines(model, width: 80, height: 24).joined().contains("Ctrl-C twice"))
    }

    @Test func aMailSentWhileOfflineAndLostWithARestartIsSaidNotSent() {
        let mail = ModalDescription.mailComposer(
            to: ["support@example.com"], cc: [], bcc: [], subject: "Hello", body: "Hello World!", isHTML: false)
        var kiosk = welcomed(mail)
        for _ in 0..<4 { _ = kiosk.press(.tab) }  // to the body
        for character in " Room 214." { _ = kiosk.press(.character(character)) }
        kiosk.drop()
        _ = kiosk.press(.tab)  // to the choices
        #expect(kiosk.press(.enter).isEmpty, "kept, not sent: offline")
        #expect(kiosk.current?.answer == .kept, "\(kiosk.screen())")
        kiosk.receive(.welcome(session: "s2", resumed: false, retentionSeconds: 60))
        #expect(
            kiosk.notices.contains { $0.text.hasPrefix("What you wrote in \u{201C}New mail\u{201D} was not sent:") },
            "\(kiosk.notices.map(\.text))")
    }
}
