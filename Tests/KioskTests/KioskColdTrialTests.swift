import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol
import Synchronization
import Testing

/// The requester's copy of a group approval: Approve waits for another screen.
private let ownCopy = ModalDescription.alert(
    title: "Approve request?", message: "lobby-1 asks for approval", textFields: [],
    actions: [
        ActionSpec(
            title: "Approve", enabled: false, preferred: true,
            explanation: "Waiting for another screen of the group to approve. Reject withdraws your request."),
        ActionSpec(title: "Reject", style: .destructive),
    ])

private let mail = ModalDescription.mailComposer(
    to: [], cc: [], bcc: [], subject: "Hi", body: "", isHTML: false)

private let rule = "Enter an e-mail address with an @ and a password"

/// The demo's Sign in: Sign In disabled until both fields are filled, with its rule.
private let ruledSignIn = ModalDescription.alert(
    title: "Sign in", message: nil,
    textFields: [
        TextFieldSpec(kind: .email, placeholder: "e-mail"), TextFieldSpec(kind: .password, placeholder: "password"),
    ],
    actions: [
        ActionSpec(title: "Cancel", style: .cancel),
        ActionSpec(title: "Sign In", enabled: false, preferred: true, explanation: rule),
    ])

@Suite("Kiosk cold trial (issue #32): a silent host, refused keys, a hidden form")
struct KioskColdTrialTests {
    /// Sign in open with the heartbeat, the e-mail typed and judged, the password typed to a
    /// host that then goes silent (the connection is dropped for not answering).
    private func typedToASilentHost() -> Kiosk {
        var kiosk = Kiosk()
        kiosk.receive(.welcome(session: "s1", resumed: false, retentionSeconds: 60, heartbeat: .standard))
        kiosk.receive(.controls(seq: 1, items: [ControlItem(id: "signIn", title: "Sign in")]))
        kiosk.receive(.present(seq: 2, id: "m1", modal: ruledSignIn))
        kiosk.seq = 2
        kiosk.type("bob@example.com")
        kiosk.fire(.input(id: "m1"))  // the throttle lets the rest go
        kiosk.receive(.update(seq: kiosk.nextSeq(), id: "m1", actions: [true, false]))
        kiosk.advance(2)
        kiosk.press(.enter)
        kiosk.type("secret")
        kiosk.fire(.input(id: "m1"))
        kiosk.press(.enter)  // on the choices
        kiosk.advance(2)  // past the window of a host without the heartbeat
        kiosk.drop()
        return kiosk
    }

    @Test func aSilentHostKeepsTheChoiceWaitingNeverTheRule() {
        var kiosk = typedToASilentHost()
        #expect(kiosk.model.connection != .connected)
        #expect(kiosk.press(.enter).isEmpty)
        let screen = kiosk.screen()
        #expect(screen.contains("[2] Sign In (waits for the host)"), "\(screen)")
        #expect(!screen.contains(rule), "\(screen)")
        #expect(kiosk.banner?.contains("waits for the host, which is not answering") == true, "\(kiosk.banner ?? "")")
        kiosk.advance(5)
        #expect(kiosk.model.takeDueChoice(now: kiosk.now).isEmpty)
        #expect(!kiosk.screen().contains(rule))
    }

    @Test func backTheTopLineFollowsAndTheKeptChoiceGoes() {
        var kiosk = typedToASilentHost()
        kiosk.press(.enter)
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60, heartbeat: .standard))
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m1", modal: ruledSignIn))  // the resume's re-sent state
        #expect(kiosk.banner?.contains("not answering") != true, "\(kiosk.banner ?? "")")
        #expect(kiosk.banner?.contains("not connected") != true, "\(kiosk.banner ?? "")")
        // The host forgot the password it was sent: its re-sent state says Sign In is disabled.
        kiosk.receive(.update(seq: kiosk.nextSeq(), id: "m1", actions: [true, false]))
        // That state was sent before the host read the values re-sent at the welcome: still
        // checking, the kept Sign In is not refused.
        kiosk.advance(KioskModel.checkWindow + 0.1)
        #expect(kiosk.model.takeDueChoice(now: kiosk.now).isEmpty)
        #expect(kiosk.screen().contains("[2] Sign In (checking\u{2026})"), "\(kiosk.screen())")
        #expect(!kiosk.screen().contains(rule))
        kiosk.receive(.resumed(seq: kiosk.nextSeq()))
        #expect(kiosk.current?.hostChecking == true, "the end of the re-sent state is not the host's word")
        kiosk.receive(.update(seq: kiosk.nextSeq(), id: "m1", actions: [true, true]))
        let due = kiosk.model.takeDueChoice(now: kiosk.now)
        #expect(due.contains { if case .answer(id: "m1", _) = $0 { true } else { false } }, "\(due)")
    }

    @Test func backAndRefusedTheRuleIsShown() {
        var kiosk = typedToASilentHost()
        kiosk.press(.enter)
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60, heartbeat: .standard))
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m1", modal: ruledSignIn))  // the resume's re-sent state
        kiosk.receive(.resumed(seq: kiosk.nextSeq()))
        kiosk.receive(.update(seq: kiosk.nextSeq(), id: "m1", actions: [true, false]))
        kiosk.advance(KioskModel.checkWindow + 0.1)
        #expect(kiosk.model.takeDueChoice(now: kiosk.now).isEmpty)
        #expect(kiosk.banner?.contains(rule) == true, "\(kiosk.banner ?? "")")
        #expect(kiosk.screen().contains("[2] Sign In (disabled)"))
    }

    @Test func keysTheDialogRefusedDoNotMakeItsEndThePersons() {
        var kiosk = welcomed()
        #expect(kiosk.press(.character("1")) == [.event(control: "signIn")])
        kiosk.receive(.present(seq: 3, id: "m2", modal: ownCopy))
        kiosk.advance(0.5)
        #expect(kiosk.press(.escape).isEmpty)
        kiosk.advance(0.5)
        #expect(kiosk.press(.enter).isEmpty)
        #expect(kiosk.banner?.contains("is not available yet") == true)
        kiosk.advance(0.5)
        // Another screen approves, within 3 s of the tap that asked.
        kiosk.receive(.dismiss(seq: 4, id: "m2", reason: .resolved))
        kiosk.advance(0.1)
        #expect(kiosk.press(.character("1")).isEmpty, "the late 1 opened Sign in")
        #expect(kiosk.banner?.hasPrefix("That key came as the screen changed") == true)
    }

    @Test func aHiddenFormTakesEscapeAloneAndSaysSo() {
        var kiosk = welcomed(mail)
        // Mail fits 40x12 without its key hint since round two; 40x11 is too small for it.
        #expect(!KioskScreen.fits(kiosk.model, width: 40, height: 11))
        let small = kiosk.screen(width: 40, height: 11)
        #expect(small.contains("Screen too small"))
        #expect(words(small).contains("Keys are ignored until then, but Esc cancels the dialog"), "\(small)")
        for key in [Key.character("x"), .enter, .tab, .backspace] {
            #expect(kiosk.model.pressHidden(key).isEmpty)
        }
        #expect(kiosk.current?.fields.map(\.text) == kiosk.current?.initialTexts, "nothing typed into the hidden form")
        #expect(kiosk.current?.answer == KioskModel.AnswerState.none)
        let intents = kiosk.model.pressHidden(.escape)
        #expect(intents.count == 1)
        if case .answer("m1", .answer(.mail(status: .cancelled, _, _, _, _, _, _, _))) = intents.first {
        } else {
            Issue.record("Esc did not choose Cancel: \(intents)")
        }
        // On the controls (nothing to cancel) the words say keys are ignored, no Esc.
        let controls = welcomed().screen(width: 30, height: 8)
        #expect(words(controls).contains("Keys are ignored until then"), "\(controls)")
        #expect(!controls.contains("Esc"))
    }

    @Test func aNoticeCarriesTheTimeItHappenedAndTheTopLineGoesInBoundedTime() {
        let wall = Wall()
        var model = KioskModel(name: "lobby-1", group: nil, clock: { wall.time.withLock { $0 } })
        model.apply(.connection(.connected(resumed: false)), now: 0)
        model.apply(.sessionReplaced(.restarted), now: 1)
        #expect(model.banner == "The host restarted.")
        wall.time.withLock { $0 = "03:04:52" }
        model.apply(.controls([]), now: 1 + KioskModel.bannerLifetime - 1)
        #expect(model.banner == "The host restarted.", "stays a while")
        #expect(model.bannerExpiry == 1 + KioskModel.bannerLifetime)
        model.tick(now: 1 + KioskModel.bannerLifetime)
        #expect(model.banner == nil, "goes after a bounded time")
        #expect(model.notices.map(\.text) == ["The host restarted."])
        #expect(model.notices.map(\.time) == ["02:55:35"], "stamped when it happened")
        // Nothing changes by itself now but the notice leaving the list, its lifetime later.
        #expect(model.bannerExpiry == 1 + KioskModel.bannerLifetime + KioskModel.noticeLifetime)
    }
}

/// A wall clock a test sets.
private final class Wall: Sendable {
    let time = Mutex("02:55:35")
}

/// The words of a screen, whatever the wrapping.
private func words(_ screen: String) -> String {
    screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
}

@Suite("Kiosk cold trial (issue #32): the sign-in on another device")
struct KioskColdTrialSignInTests {
    @Test func enterKeepsTheQRCodeAt80x24AndTheHintGoesWithItsDialog() {
        var kiosk = welcomed(
            .webAuthentication(
                url: "https://id.example.com/authorize?client_id=k", callbackURL: "https://kiosk.example/cb",
                callbackURLScheme: nil))
        let before = KioskScreen.render(kiosk, width: 80, height: 24, appearance: .plain)
        #expect(kiosk.press(.enter).isEmpty)
        let after = KioskScreen.render(kiosk, width: 80, height: 24, appearance: .plain)
        let qr = { (rows: [String]) in rows.filter { $0.contains("\u{2588}") || $0.contains("\u{2580}") }.count }
        #expect(qr(before) > 0 && qr(after) == qr(before), "\(after.joined(separator: "\n"))")
        #expect(!after.joined().contains("40x"), "no size for another terminal")
        kiosk.receive(.dismiss(seq: kiosk.nextSeq(), id: "m1", reason: .resolved))
        #expect(!kiosk.screen().contains("Sign in with the address above"), "the hint went with its dialog")
    }

    @Test func theRequestersRuleOnTopGoesWithItsDialogWithoutAKey() {
        var kiosk = welcomed(ownCopy)
        kiosk.press(.escape)
        #expect(kiosk.banner == "Waiting for another screen of the group to approve. Reject withdraws your request.")
        kiosk.receive(.dismiss(seq: kiosk.nextSeq(), id: "m1", reason: .resolved))
        kiosk.receive(.status(seq: kiosk.nextSeq(), level: .info, text: "Approved by lobby-2"))
        #expect(kiosk.banner == nil, "\(kiosk.banner ?? "")")
        #expect(!kiosk.screen().contains("Reject withdraws"), "\(kiosk.screen())")
        #expect(kiosk.screen().contains("INFO: Approved by lobby-2"))
    }

    @Test func wordsOnTopNotAboutTheDialogStayWhenItGoes() {
        var kiosk = welcomed(ownCopy)
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m2", modal: mail))
        kiosk.press(.escape)  // the rule of m1, on screen
        let rule = kiosk.banner
        #expect(rule != nil)
        kiosk.receive(.dismiss(seq: kiosk.nextSeq(), id: "m2", reason: .resolved))
        #expect(kiosk.banner == rule, "another dialog went, not the one the words are about")
    }

    @Test func anAnswerTheHostTookAcrossALostConnectionIsToldAsTaken() {
        let country = ModalDescription.actionSheet(
            title: "Choose a country", message: nil, source: nil,
            actions: [ActionSpec(title: "France"), ActionSpec(title: "Japan")])
        var kiosk = welcomed(country)
        #expect(kiosk.press(.character("2")) == [.result(id: "m1", value: ["action": 1])])
        kiosk.drop()
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.receive(.status(seq: kiosk.nextSeq(), level: .success, text: "Country: Japan"))
        let screen = kiosk.screen()
        #expect(screen.contains("\u{201C}Choose a country\u{201D} is done: the host took your answer."), "\(screen)")
        #expect(!screen.contains("offline") && !screen.contains("ended while"), "\(screen)")
    }

    @Test func aDialogUnansweredThatEndedWhileAwayBlamesNeitherSide() {
        var kiosk = welcomed(ownCopy)
        kiosk.drop()
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.receive(.status(seq: kiosk.nextSeq(), level: .info, text: "Rejected by lobby-2"))
        let screen = kiosk.screen()
        #expect(
            screen.contains("\u{201C}Approve request?\u{201D} ended while the host could not be reached."), "\(screen)")
        #expect(!screen.contains("offline"), "\(screen)")
    }

    @Test func mailFits40x12WithoutItsKeyHintAndShowsItWhereItFits() {
        let demoMail = ModalDescription.mailComposer(
            to: ["support@example.com"], cc: [], bcc: [], subject: "Hello", body: "Hello World!", isHTML: false)
        var kiosk = welcomed(demoMail)
        #expect(KioskScreen.fits(kiosk.model, width: 40, height: 12), "\(kiosk.screen(width: 40, height: 12))")
        #expect(kiosk.screen(width: 40, height: 13).contains("Esc cancels."))
        for _ in 0..<4 { kiosk.press(.tab) }  // the body: a hint of two rows at 40 columns
        #expect(KioskScreen.fits(kiosk.model, width: 40, height: 12), "\(kiosk.screen(width: 40, height: 12))")
        #expect(!kiosk.screen(width: 40, height: 13).contains("Esc cancels."), "a hint is whole or not drawn")
        #expect(kiosk.screen(width: 40, height: 14).contains("Esc cancels."))
    }
}
