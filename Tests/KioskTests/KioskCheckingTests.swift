import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol
import Testing

/// Right after typing, the host has not yet judged the fields: the kiosk says it is checking
/// and keeps a choice pressed meanwhile, choosing it when the host enables it (issue #32:
/// the person is never told their input is wrong while the host simply has not answered).
@Suite("Kiosk: a choice pressed while the host checks is kept, not refused")
struct KioskCheckingTests {
    private func typed() -> Kiosk {
        var kiosk = welcomed(signIn)
        kiosk.type("ann@example.com")
        kiosk.press(.enter)
        kiosk.type("pw")
        kiosk.press(.enter)  // on the choices now; Sign In is still disabled as presented
        return kiosk
    }

    /// The answers the kiosk sends for the choices now due (`takeDueChoice`).
    private func dueAnswers(_ kiosk: inout Kiosk) -> [ClientMessage] {
        var answers: [ClientMessage] = []
        for intent in kiosk.model.takeDueChoice(now: kiosk.now) {
            if case .answer(let id, let reply) = intent {
                let before = kiosk.sent.count
                kiosk.run(kiosk.machine.handle(.answered(id: id, reply)))
                answers += kiosk.sent[before...]
            }
        }
        return answers
    }

    @Test func theChoiceSaysCheckingAndIsChosenWhenTheHostEnablesIt() {
        var kiosk = typed()
        #expect(kiosk.screen().contains("[2] Sign In (checking\u{2026})"))
        #expect(kiosk.press(.character("2")).isEmpty)
        #expect(kiosk.model.banner?.contains("Checking with the host") == true)
        kiosk.receive(.update(seq: kiosk.nextSeq(), id: "m1", actions: [true, true]))
        let answers = dueAnswers(&kiosk)
        #expect(answers.contains { if case .result(id: "m1", _) = $0 { true } else { false } })
    }

    @Test func pastTheWindowAStillDisabledChoiceIsRefusedInWordsAndSaysDisabled() {
        var kiosk = typed()
        #expect(kiosk.press(.character("2")).isEmpty)
        kiosk.advance(KioskModel.checkWindow + 0.1)
        #expect(kiosk.model.takeDueChoice(now: kiosk.now).isEmpty)
        #expect(kiosk.model.banner?.contains("is not available with what is filled in") == true)
        #expect(kiosk.screen().contains("[2] Sign In (disabled)"))
    }

    /// The second cold trial: Enter on Sign in, typed and pressed while the host was away, was
    /// lost ("waits for the host, which is not connected", and nothing once it was back).
    @Test func aChoicePressedOfflineIsKeptAndChosenOnceTheHostIsBackAndEnablesIt() {
        var kiosk = typed()
        kiosk.advance(KioskModel.checkWindow + 0.1)
        kiosk.drop()
        kiosk.advance(KioskModel.checkWindow + 0.1)
        #expect(kiosk.press(.character("2")).isEmpty)
        #expect(
            kiosk.model.banner
                == "Saved: \u{201C}Sign In\u{201D} is chosen once the host is back and has checked what is filled in.")
        // Still kept while the host is away, however long.
        kiosk.advance(30)
        #expect(kiosk.model.takeDueChoice(now: kiosk.now).isEmpty)
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m1", modal: signIn))
        kiosk.receive(.resumed(seq: kiosk.nextSeq()))
        kiosk.receive(.update(seq: kiosk.nextSeq(), id: "m1", actions: [true, true]))
        let answers = dueAnswers(&kiosk)
        #expect(answers.contains { if case .result(id: "m1", _) = $0 { true } else { false } })
    }

    @Test func aChoiceKeptOfflineThatTheHostStillRefusesSaysTheRuleOnceBack() {
        var kiosk = typed()
        kiosk.advance(KioskModel.checkWindow + 0.1)
        kiosk.drop()
        kiosk.advance(KioskModel.checkWindow + 0.1)
        #expect(kiosk.press(.character("2")).isEmpty)
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m1", modal: signIn))
        kiosk.receive(.resumed(seq: kiosk.nextSeq()))
        kiosk.advance(KioskModel.checkWindow + 0.1)
        #expect(kiosk.model.takeDueChoice(now: kiosk.now).isEmpty)
        #expect(kiosk.model.banner?.contains("is not available with what is filled in") == true)
    }

    /// The second cold trial: a requester's own Approve (disabled, no fields) pressed while the
    /// host was away said "it is chosen once the host is back", which it never is.
    @Test func aDisabledChoiceOfADialogWithoutFieldsIsNeverKeptAndSaysWhy() {
        let approval = ModalDescription.alert(
            title: "Approve request?", message: "Ann asks for approval", textFields: [],
            actions: [
                ActionSpec(
                    title: "Approve", enabled: false, preferred: true,
                    explanation: "Waiting for another screen of the group to approve."),
                ActionSpec(title: "Reject", style: .destructive),
            ])
        var kiosk = welcomed(approval)
        kiosk.drop()
        kiosk.advance(1)
        #expect(kiosk.press(.character("1")).isEmpty)
        let banner = kiosk.model.banner ?? ""
        #expect(!banner.contains("once the host is back"), "\(banner)")
        #expect(banner.contains("Waiting for another screen of the group to approve."), "\(banner)")
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m1", modal: approval))
        kiosk.receive(.resumed(seq: kiosk.nextSeq()))
        kiosk.advance(KioskModel.checkWindow + 0.1)
        #expect(kiosk.model.takeDueChoice(now: kiosk.now).isEmpty, "nothing chosen by itself")
    }
}
