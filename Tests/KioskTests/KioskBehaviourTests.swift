import Foundation
import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol
import RemoteModalQRCode
import Testing

private let mail = ModalDescription.mailComposer(
    to: ["support@example.com"], cc: [], bcc: [], subject: "Hello", body: "Hello World!", isHTML: false)
private let photos = ModalDescription.photoPicker(selectionLimit: 2, filter: [], maxBytes: 10_485_760)

private let file = PickedFileInfo(name: "a.jpg", mimeType: "image/jpeg", size: 1_000_000, sha256: "ab")

@Suite("Kiosk: ways out, notices, host restarts")
struct KioskWaysOutTests {
    @Test func escapeAfterTheAnswerWentSendsNoSecondAnswerAndSaysWhyTheDialogStays() {
        // A cancel after the answer went is a second, different answer (protocol.md 12.4),
        // and the host takes the first anyway: it closed the dialog as if Escape had undone it.
        var model = welcomed(signIn)
        _ = model.press(.character("x"))
        _ = model.press(.tab)
        _ = model.press(.tab)
        #expect(model.press(.character("1")).count == 1)
        #expect(model.current?.answer == .sent)
        #expect(model.screen().contains("Waiting for the host to confirm your answer."))
        #expect(!model.screen().contains("Esc"), "no key is offered that would undo it")
        #expect(model.press(.escape) == [])
        #expect(model.current?.id == "m1")
        #expect(
            model.banner
                == "Your answer has gone to the host and cannot be taken back: waiting for the host to confirm it.")
        #expect(model.screen().contains("(answer “Cancel” sent, waiting for the host)"))
        // The host's dismiss ends it, and the words about it go with it.
        model.receive(.dismiss(seq: model.nextSeq(), id: "m1", reason: .resolved))
        #expect(model.current == nil)
        #expect(model.banner == nil)
    }

    @Test func escapeOnAnAnswerKeptOfflineCancelsInsteadAndOnlyTheCancelGoes() {
        let proceed = ModalDescription.alert(
            title: "Proceed?", message: nil, textFields: [],
            actions: [ActionSpec(title: "OK"), ActionSpec(title: "Cancel", style: .cancel)])
        var model = welcomed(proceed)
        model.drop()
        #expect(model.press(.character("1")).isEmpty, "kept while offline")
        #expect(model.current?.answer == .kept)
        #expect(model.screen().contains("Esc cancels instead: your answer has not gone yet."))
        #expect(model.press(.escape).isEmpty)
        #expect(model.current == nil)
        // The host re-sending it after the resume does not bring it back; only the cancel goes.
        model.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        model.receive(.present(seq: model.nextSeq(), id: "m1", modal: proceed))
        #expect(model.current == nil)
        let answers = model.sent.filter {
            switch $0 {
            case .result(id: "m1", _), .failure(id: "m1", _, _): true
            default: false
            }
        }
        #expect(answers == [.failure(id: "m1", code: .cancelled, message: nil)])
    }

    @Test func escapeOnAnApprovalKeptOfflineIsRefusedAsBeforeTheAnswer() {
        // Its cancel would end the approval for every member: refused, kept or not.
        let approval = ModalDescription.alert(
            title: "Approve request?", message: nil, textFields: [],
            actions: [ActionSpec(title: "Approve"), ActionSpec(title: "Reject", style: .destructive)])
        var model = welcomed(approval)
        model.drop()
        #expect(model.press(.character("1")).isEmpty)
        #expect(model.current?.answer == .kept)
        #expect(model.press(.escape).isEmpty)
        #expect(model.current?.id == "m1")
        #expect(model.banner == "Escape does not close this: your answer goes when the host is back.")
        #expect(model.screen().contains("Your answer goes when the host is back."))
        #expect(!model.screen().contains("Esc cancels"))
        model.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        #expect(model.sent.last == .result(id: "m1", value: ["action": 0, "textFields": []]))
    }

    @Test func escapeOnAnAlertOrSheetWithoutACancelChoiceStaysAndSaysWhy() {
        // As in the browser: such a modal is answered by one of its choices. A group approval
        // (Approve, Reject) cancelled by one member's Escape ended it for every member.
        let approval = ModalDescription.alert(
            title: "Approve request?", message: nil, textFields: [],
            actions: [ActionSpec(title: "Approve"), ActionSpec(title: "Reject", style: .destructive)])
        let sheet = ModalDescription.actionSheet(
            title: "Pick", message: nil, source: nil, actions: [ActionSpec(title: "A"), ActionSpec(title: "B")])
        for modal in [approval, sheet] {
            var model = welcomed(modal)
            #expect(model.press(.escape) == [], "\(modal.kind)")
            #expect(model.current?.id == "m1")
            #expect(model.banner == "Please choose one of the options.")
            let screen = KioskScreen.lines(model, width: 80, height: 24).joined(separator: "\n")
            #expect(screen.contains("Please choose one of the options."))
            #expect(!screen.contains("Esc cancels"), "\(modal.kind)")
            #expect(screen.contains("Number or Enter (\(modal.actions![0].title)) picks"))
            let answer: JSONValue = modal.kind == "alert" ? ["action": 0, "textFields": []] : ["action": 0]
            #expect(model.press(.enter) == [(.result(id: "m1", value: answer))])
        }
        // A cancel choice that is disabled: Escape stays too, and says so.
        let locked = ModalDescription.alert(
            title: "Wait", message: nil, textFields: [],
            actions: [ActionSpec(title: "OK"), ActionSpec(title: "Cancel", style: .cancel, enabled: false)])
        var model = welcomed(locked)
        #expect(model.press(.escape) == [])
        #expect(model.banner == "Cancel is not available right now.")
    }

    @Test func escapeOnAComposerSomeoneWroteInAsksOnceBeforeDiscarding() {
        let mail = ModalDescription.mailComposer(to: [], cc: [], bcc: [], subject: "", body: "", isHTML: false)
        // Untouched: Escape cancels at once.
        var untouched = welcomed(mail)
        #expect(!untouched.press(.escape).isEmpty)
        #expect(untouched.current == nil || untouched.current?.answered == true)
        // Written in: the first Escape asks, any other key disarms it, two in a row cancel.
        var model = welcomed(mail)
        _ = model.press(.character("x"))
        #expect(model.press(.escape) == [])
        #expect(model.banner == "Press Escape again to discard what you wrote.")
        #expect(model.current?.id == "m1")
        _ = model.press(.character("y"))
        #expect(model.press(.escape) == [])
        let effects = model.press(.escape)
        #expect(!effects.isEmpty)
        #expect(model.current == nil || model.current?.answered == true)
    }

    @Test func aMailToSomethingThatIsNotAnAddressIsNotSent() {
        let mail = ModalDescription.mailComposer(
            to: ["not an address"], cc: [], bcc: [], subject: "Hi", body: "", isHTML: false)
        var model = welcomed(mail)
        for _ in 0..<5 { _ = model.press(.tab) }
        #expect(model.press(.character("3")) == [], "Send refused")
        #expect(model.current?.fields[0].error == "Not a mail address: not an address")
        #expect(model.current?.focus == 0, "back in the To field")
        #expect(model.current?.answered == false)
        // Saving a draft needs no address.
        for _ in 0..<5 { _ = model.press(.tab) }
        #expect(!model.press(.character("2")).isEmpty)
        // No recipient at all: refused too; a valid one goes.
        var empty = welcomed(.mailComposer(to: [], cc: [], bcc: [], subject: "", body: "", isHTML: false))
        for _ in 0..<5 { _ = empty.press(.tab) }
        #expect(empty.press(.character("3")) == [])
        #expect(empty.current?.fields[0].error == "Add a recipient first.")
        // A message needs a phone number or an address.
        var message = welcomed(.messageComposer(recipients: ["not a number"], subject: nil, body: "Hi"))
        for _ in 0..<2 { _ = message.press(.tab) }
        #expect(message.press(.character("2")) == [])
        #expect(message.current?.fields[0].error == "Not a phone number or address: not a number")
        var phone = welcomed(.messageComposer(recipients: ["0639981337"], subject: nil, body: "Hi"))
        for _ in 0..<2 { _ = phone.press(.tab) }
        #expect(!phone.press(.character("2")).isEmpty)
        #expect(ModalForm.looksLikeMailAddress("ann@example.com"))
        #expect(!ModalForm.looksLikeMailAddress("ann@"))
        #expect(!ModalForm.looksLikeMailAddress("a b@example.com"))
    }

    @Test func enterWithTheSignInStillDisabledSaysWhyAndKeepsWhatWasTyped() {
        let alert = ModalDescription.alert(
            title: "Sign in", message: nil,
            textFields: [TextFieldSpec(kind: .email), TextFieldSpec(kind: .password)],
            actions: [
                ActionSpec(title: "Cancel", style: .cancel),
                ActionSpec(title: "Sign In", enabled: false, preferred: true),
            ])
        var model = welcomed(alert)
        for character in "not an address" { _ = model.press(.character(character)) }
        _ = model.press(.enter)
        for character in "pw" { _ = model.press(.character(character)) }
        _ = model.press(.enter)
        #expect(model.current?.defaultChoice == nil, "no fall-through to Cancel")
        // Right after typing the host may not have said yet: checking, nobody blamed.
        #expect(model.press(.enter) == [])
        #expect(model.banner == "Checking with the host whether \u{201C}Sign In\u{201D} can be chosen...")
        model.advance(KioskModel.checkWindow)
        #expect(model.press(.enter) == [])
        #expect(model.banner == "\u{201C}Sign In\u{201D} is not available with what is filled in.")
        #expect(model.current?.fields.map(\.text) == ["not an address", "pw"])
        #expect(model.current?.answered == false)
    }

    @Test func enterPicksTheFirstEnabledChoiceWithoutAPreferredOneAsTheBrowserDoes() {
        let country = ModalDescription.actionSheet(
            title: "Choose a country", message: nil, source: nil,
            actions: [
                ActionSpec(title: "France", enabled: false), ActionSpec(title: "Japan"), ActionSpec(title: "Brazil"),
                ActionSpec(title: "Cancel", style: .cancel),
            ])
        var model = welcomed(country)
        #expect(model.current?.defaultChoice == 1)
        #expect(model.press(.enter) == [(.result(id: "m1", value: ["action": 1]))])
    }

    @Test func everyKindHasAWayOutAndAHintThatSaysSo() {
        let kinds: [ModalDescription] = [
            signIn, photos,
            .actionSheet(
                title: "Pick", message: nil, source: nil,
                actions: [ActionSpec(title: "A"), ActionSpec(title: "None", style: .cancel)]),
            .mailComposer(to: [], cc: [], bcc: [], subject: "", body: "", isHTML: false),
            .messageComposer(recipients: [], subject: nil, body: ""),
            .webAuthentication(url: "https://id.example/auth?x=1", callbackURL: "https://h/cb", callbackURLScheme: nil),
            .mediaPicker(types: ["audio"], allowsMultiple: false, maxBytes: 1_000),
        ]
        for kind in kinds {
            var model = welcomed(kind)
            let screen = KioskScreen.lines(model, width: 120, height: 40).joined(separator: "\n")
            #expect(screen.contains("Esc cancels"), "\(kind.kind)")
            let effects = model.press(.escape)
            #expect(
                effects.contains { if case .failure(_, .cancelled, _) = $0 { true } else { false } }
                    || effects.contains { if case .result = $0 { true } else { false } }, "\(kind.kind)")
            #expect(model.current == nil || model.current?.answered == true, "\(kind.kind)")
        }
    }

    @Test func enterPicksThePreferredActionWhichIsMarked() {
        let sheet = ModalDescription.alert(
            title: "Delete?", message: nil, textFields: [],
            actions: [
                ActionSpec(title: "Keep", preferred: true), ActionSpec(title: "Delete", style: .destructive),
                ActionSpec(title: "Cancel", style: .cancel),
            ])
        var model = welcomed(sheet)
        let screen = KioskScreen.lines(model, width: 80, height: 24)
        #expect(screen.contains("  [1] Keep  <- Enter"))
        #expect(screen.contains { $0.contains("Number or Enter (Keep) picks") })
        #expect(model.press(.enter) == [(.result(id: "m1", value: ["action": 0, "textFields": []]))])
    }

    @Test func hostTextCannotDriveTheTerminal() {
        // A title and another client's name in a notice carrying escape sequences (clear the
        // screen, retitle the window, a bidi override): shown, never obeyed.
        let evil = "\u{1B}[2J\u{1B}]0;owned\u{07}Sign\u{202E}in\u{9B}31m"
        var model = welcomed(
            .alert(title: evil, message: "m\u{1B}[5m", textFields: [], actions: [ActionSpec(title: evil)]))
        model.receive(.status(seq: 3, level: .info, text: "Approved by \(evil)"))
        for appearance in [KioskScreen.Appearance.plain, KioskScreen.Appearance(colour: true, unicode: true)] {
            let screen = KioskScreen.render(model, width: 120, height: 40, appearance: appearance).joined()
            let foreign = screen.unicodeScalars.filter { [0x07, 0x9B, 0x202E].contains($0.value) }
            #expect(foreign.isEmpty)
            // Every ESC left is one of the kiosk's own colour codes, followed by "[" and digits.
            let parts = screen.components(separatedBy: "\u{1B}").dropFirst()
            #expect(parts.allSatisfy { $0.first == "[" && $0.dropFirst().first.map { $0.isNumber } == true })
            #expect(!screen.contains("\u{1B}[2J") && !screen.contains("\u{1B}]0;"))
            #expect(screen.contains("\u{241B}[2J"))
        }
    }

    @Test func noticesAreCappedNewestFirstErrorsKeptLongest() {
        var model = welcomed()
        model.receive(.error(seq: nil, ProtocolError(.rateLimited, "slow down")))
        for index in 1...10 { model.receive(.status(seq: 1 + index, level: .info, text: "note \(index)")) }
        #expect(model.notices.count == KioskModel.noticeLimit)
        #expect(model.notices.first?.text == "host: slow down")
        #expect(model.notices.last?.text == "note 10")
        let screen = KioskScreen.lines(model, width: 80, height: 24)
        let ten = screen.firstIndex { $0.contains("note 10") }!
        let six = screen.firstIndex { $0.contains("note 6") }!
        #expect(ten < six)
        #expect(!screen.contains { $0.contains("note 5") })
    }

    @Test func aFreshSessionAfterAResumeSaysTheRequestWasCancelled() {
        var model = welcomed(photos)
        model.drop()
        model.receive(.welcome(session: "s2", resumed: false, retentionSeconds: 60))
        #expect(model.current == nil)
        let screen = KioskScreen.lines(model, width: 80, height: 24).joined(separator: "\n")
        #expect(screen.contains("The host restarted: \u{201C}Choose photos\u{201D} was cancelled."))
        #expect(screen.components(separatedBy: "The host restarted").count == 2, "said once: \(screen)")
        #expect(screen.contains("Controls (press a number):"))
        #expect(screen.contains("Ctrl-C twice closes the kiosk."), "the way out is on the main screen")
        _ = model.press(.character("9"))
        #expect(model.banner == nil)
        // Read and cleared, it stays in the notices.
        #expect(model.notices.last?.level == .error)
        #expect(model.notices.last?.text == "The host restarted: \u{201C}Choose photos\u{201D} was cancelled.")
    }

    @Test func aModalDismissedByAShutdownIsNamedWhenTheHostIsBack() {
        var model = welcomed(photos)
        model.receive(.dismiss(seq: 3, id: "m1", reason: .shutdown))
        #expect(model.banner?.contains("was cancelled") == true)
        model.drop()
        model.receive(.welcome(session: "s2", resumed: false, retentionSeconds: 60))
        #expect(
            model.banner
                == "The host restarted: \u{201C}Choose photos\u{201D} was cancelled. Start again from the controls.")
    }

    @Test func aComposerTheHostEndsKeepsWhatWasWrittenOnScreen() {
        var model = welcomed(mail)
        for _ in 0..<4 { _ = model.press(.tab) }  // to the body
        for character in " Call me." { _ = model.press(.character(character)) }
        model.receive(.dismiss(seq: 3, id: "m1", reason: .shutdown))
        let kept = model.notices.last
        #expect(kept?.level == .error)
        #expect(
            kept?.text
                == "What you wrote in \u{201C}New mail\u{201D} was not sent: To: support@example.com \u{00B7} "
                + "Subject: Hello \u{00B7} Body: Hello World! Call me.")
        // Untouched, or cancelled by the person: nothing to keep.
        var untouched = welcomed(mail)
        untouched.receive(.dismiss(seq: 3, id: "m1", reason: .shutdown))
        #expect(!untouched.notices.contains { $0.text.contains("was not sent") })
    }

    @Test func unsentTextIsClearedFromTheSharedScreenAfterItsLifetime() {
        // The cold trial: the next passer-by read the last one's unsent mail in the notices.
        var model = welcomed(mail)
        for _ in 0..<4 { _ = model.press(.tab) }  // to the body
        for character in " My PIN is 1234." { _ = model.press(.character(character)) }
        model.receive(.dismiss(seq: 3, id: "m1", reason: .shutdown))
        let start = model.notices.last.flatMap(\.forgetAt).map { $0 - KioskModel.defaultTypedTextLifetime }
        #expect(start != nil)
        let due = (start ?? 0) + KioskModel.defaultTypedTextLifetime
        #expect(model.model.bannerExpiry.map { $0 <= due } == true, "a redraw comes when the text goes")
        model.model.tick(now: due - 1)
        #expect(KioskScreen.lines(model, width: 100, height: 30).joined().contains("My PIN is 1234."))
        model.model.tick(now: due)
        let screen = KioskScreen.lines(model, width: 100, height: 30).joined(separator: "\n")
        #expect(!screen.contains("PIN"), "\(screen)")
        #expect(
            model.notices.last?.text
                == "What was written in \u{201C}New mail\u{201D} was not sent; cleared from this screen after 2 minutes."
        )
        #expect(model.notices.last?.forgetAt == nil)
        // A kiosk started with --forget-typed-after 0 keeps nothing readable.
        #expect(KioskModel(name: "k", group: nil, typedTextLifetime: -5).typedTextLifetime == 0)
    }

    @Test func withNoLifetimeUnsentTextIsNeverShown() {
        var kiosk = Kiosk()
        kiosk.model = KioskModel(name: "lobby-1", group: "lobby", typedTextLifetime: 0)
        kiosk.receive(.welcome(session: "s1", resumed: false, retentionSeconds: 60))
        kiosk.receive(.present(seq: 1, id: "m1", modal: mail))
        for character in "secret" { _ = kiosk.press(.character(character)) }
        kiosk.receive(.dismiss(seq: 2, id: "m1", reason: .shutdown))
        #expect(!kiosk.screen(width: 100, height: 30).contains("secret"))
        #expect(kiosk.notices.last?.text.hasPrefix("What was written in \u{201C}New mail\u{201D} was not sent") == true)
    }

    @Test func theFirstWelcomeSaysNothing() {
        let model = welcomed()
        #expect(model.banner == nil)
        #expect(model.notices.isEmpty)
    }
}

@Suite("Kiosk uploads: progress from the client core, a way out, other files after a refusal")
struct KioskUploadTests {
    func uploading() -> Kiosk {
        var model = welcomed(photos)
        model.type("/tmp/a.jpg")
        _ = model.press(.tab)
        #expect(model.press(.enter).isEmpty)
        #expect(model.picked.last?.paths == ["/tmp/a.jpg"])
        model.upload([file])
        return model
    }

    @Test func progressCountsAcknowledgedBytes() {
        var model = uploading()
        #expect(model.sent.filter { if case .upload = $0 { true } else { false } }.count == 8)
        model.receive(.uploadAck(seq: 3, id: "m1", file: 0, received: 32_768))
        #expect(model.current?.upload?.acknowledged == 32_768)
        let screen = KioskScreen.lines(model, width: 80, height: 24).joined(separator: "\n")
        #expect(screen.contains("32.8 kB of 1.0 MB received"))
        #expect(screen.contains("Esc cancels the upload."))
        var seq = 3
        for offset in stride(from: 65_536, through: 1_000_000, by: 32_768) {
            seq += 1
            model.receive(.uploadAck(seq: seq, id: "m1", file: 0, received: min(offset, 1_000_000)))
            model.readAll()
        }
        model.receive(.uploadAck(seq: seq + 1, id: "m1", file: 0, received: 1_000_000))
        #expect(model.sent.contains { if case .result(id: "m1", _) = $0 { true } else { false } })
        let done = KioskScreen.lines(model, width: 80, height: 24).joined(separator: "\n")
        #expect(done.contains("Sent a.jpg: 1.0 MB, every byte confirmed."), "\(done)")
    }

    @Test func aDisconnectSaysPausedAndKeepsTheDialog() {
        var model = uploading()
        model.receive(.uploadAck(seq: 3, id: "m1", file: 0, received: 65_536))
        model.drop()
        let paused = KioskScreen.lines(model, width: 80, height: 30).joined(separator: "\n")
        #expect(paused.contains("Paused: reconnecting"), "\(paused)")
        #expect(paused.contains("== Choose photos =="))
    }

    @Test func escapeMidUploadCancels() {
        var model = uploading()
        #expect(model.press(.escape) == [.failure(id: "m1", code: .cancelled, message: nil)])
        #expect(model.current == nil)
    }

    @Test func aRefusalOffersOtherFilesByDefaultNotTheSameOnesAgain() {
        var model = uploading()
        model.receive(.uploadAck(seq: 3, id: "m1", file: 0, received: 32_768))
        model.receive(.error(seq: 5, ProtocolError(.uploadInvalid, "offset 98304, host holds 32768", ref: "upload")))
        let screen = KioskScreen.lines(model, width: 80, height: 24)
        #expect(screen.contains("The host did not take these files: offset 98304, host holds 32768"))
        #expect(screen.filter { $0.contains("<- Enter") } == ["  [3] Choose other files  <- Enter"])
        #expect(screen.contains("  [2] Try again"))
        let before = model.sent.count
        model.press(.character("2"))
        model.readAll()
        let again = model.sent[before...].compactMap { if case .upload(let chunk) = $0 { chunk.offset } else { nil } }
        #expect(again.min() == 32_768, "tried again from what the host holds")
        model.receive(.error(seq: 6, ProtocolError(.uploadInvalid, "no", ref: "upload")))
        #expect(model.press(.enter).isEmpty)
        #expect(model.current?.upload == nil)
        #expect(model.current?.focus == 0)
        #expect(model.current?.fields[0].error == "no")
    }

    @Test func bytesAsPeopleReadThem() {
        #expect(KioskModel.format(512) == "512 B")
        #expect(KioskModel.format(9_100_000) == "9.1 MB")
        #expect(KioskModel.format(9_961_472) == "10.0 MB")
        #expect(KioskModel.format(999_999) == "1.0 MB")
        #expect(KioskModel.format(10_485_760) == "10.5 MB")
    }
}

@Suite("Kiosk look: colour, width, too small, the address and its QR code")
struct KioskLookTests {
    @Test func colourOnlyWhereItIsWanted() {
        #expect(KioskScreen.Appearance.detect(environment: ["TERM": "xterm-256color"], isTerminal: true).colour)
        #expect(
            !KioskScreen.Appearance.detect(environment: ["TERM": "xterm", "NO_COLOR": "1"], isTerminal: true).colour)
        #expect(!KioskScreen.Appearance.detect(environment: ["TERM": "dumb"], isTerminal: true).colour)
        #expect(!KioskScreen.Appearance.detect(environment: ["TERM": "dumb"], isTerminal: true).unicode)
        #expect(!KioskScreen.Appearance.detect(environment: ["TERM": "xterm"], isTerminal: false).colour)
    }

    @Test func errorsAreRedAndThePreferredActionStandsOut() {
        var model = welcomed(signIn)
        model.receive(.error(seq: 3, ProtocolError(.badMessage, "nope")))
        _ = model.press(.tab)
        _ = model.press(.tab)
        model.receive(.update(seq: 4, id: "m1", actions: [true, true]))
        let lines = KioskScreen.render(
            model, width: 100, height: 30, appearance: KioskScreen.Appearance(colour: true, unicode: true))
        // A fresh notice, on the top line.
        #expect(lines.contains { $0.hasPrefix("\u{1B}[1;31mERROR: ") })
        #expect(lines.contains { $0.contains("\u{1B}[1;7m[2] Sign In\u{1B}[0m") })
        let plain = KioskScreen.lines(model, width: 100, height: 30)
        #expect(!plain.joined().contains("\u{1B}"))
    }

    @Test func warningsAreBoldInTheTerminalsOwnColourNotYellow() {
        var model = welcomed()
        model.drop()
        let lines = KioskScreen.render(
            model, width: 100, height: 30, appearance: KioskScreen.Appearance(colour: true, unicode: true))
        #expect(lines.contains { $0.contains("\u{1B}[1mreconnecting\u{1B}[0m") })
        #expect(!lines.joined().contains("\u{1B}[1;33m"))
    }

    @Test func theDividerFollowsTheWidth() {
        for width in [40, 100, 180] {
            let lines = KioskScreen.lines(welcomed(), width: width, height: 24)
            #expect(lines[1] == String(repeating: "\u{2500}", count: width))
        }
    }

    @Test func belowTheNeededSizeItSaysSoInsteadOfCuttingActions() {
        let small = KioskScreen.lines(welcomed(signIn), width: 30, height: 6)
        #expect(small.first == "Screen too small")
        #expect(small.count <= 6 && small.allSatisfy { $0.count <= 30 })
        let short = KioskScreen.lines(welcomed(signIn), width: 80, height: 8)
        #expect(short.first == "Screen too small")
        let fits = KioskScreen.lines(welcomed(signIn), width: 80, height: 24)
        #expect(fits.contains { $0.contains("[2] Sign In") })
    }

    @Test func theAddressIsWholeAndHasAQRCodeWhenThereIsRoom() throws {
        let url = "https://id.example.com/authorize?client_id=kiosk&state=" + String(repeating: "x", count: 90)
        let model = welcomed(.webAuthentication(url: url, callbackURL: "https://h/cb", callbackURLScheme: nil))
        let narrow = KioskScreen.lines(model, width: 80, height: 24)
        #expect(narrow.contains(url))
        #expect(narrow.contains { $0.contains("QR code of this address shows in a") })
        let wide = KioskScreen.lines(model, width: 120, height: 60)
        #expect(wide.contains(url))
        let code = try QRCode(url, correction: .low)
        // Without colour the glyphs draw the light modules (a dark terminal's foreground).
        let drawn = KioskQR.halfBlocks(code, quietZone: 4, glyphsAreDark: false)
        let start = try #require(wide.firstIndex(of: drawn[0]))
        #expect(Array(wide[start..<start + drawn.count]) == drawn)
        // The rows the terminal wraps the address over count against the height.
        let rows = wide.reduce(0) { $0 + max(1, ($1.count + 119) / 120) }
        #expect(rows <= 60)
    }

    @Test func theQRCodeHasItsFinderPatterns() throws {
        let code = try QRCode("https://example.com/")
        #expect(code.size == 17 + 4 * code.version)
        for (row, column) in [(0, 0), (0, code.size - 7), (code.size - 7, 0)] {
            for offset in 0..<7 {
                #expect(code[row, column + offset] && code[row + 6, column + offset])
                #expect(code[row + offset, column] && code[row + offset, column + 6])
            }
            #expect(!code[row + 1, column + 1] && code[row + 3, column + 3])
        }
        #expect(throws: QRCode.Failure.unencodable) { try QRCode("") }
        #expect(throws: QRCode.Failure.self) { try QRCode(String(repeating: "x", count: 5_000)) }
    }
}

@Suite("Kiosk: the hint, the Enter marker and errors say what is true, where it concerns")
struct KioskTruthfulScreenTests {
    private func screen(_ model: Kiosk) -> [String] { KioskScreen.lines(model, width: 80, height: 24) }

    private func hint(_ model: Kiosk) -> String { screen(model).last { $0.contains("Esc") } ?? "" }

    private func type(_ text: String, into model: inout Kiosk) {
        for character in text { _ = model.press(.character(character)) }
    }

    private func cancels(_ effects: [ClientMessage]) -> Bool { !effects.isEmpty }

    @Test func theEscapeHintOfAComposerSaysWhenItAsksFirst() {
        let composers: [ModalDescription] = [
            .mailComposer(to: ["ann@example.com"], cc: [], bcc: [], subject: "Hi", body: "", isHTML: false),
            .messageComposer(recipients: ["0639981337"], subject: nil, body: "Hi"),
        ]
        for composer in composers {
            var model = welcomed(composer)
            // After each key, what the hint says Esc does is what Esc does.
            let keys: [Key] = [.character("x"), .escape, .character("y"), .backspace, .backspace, .tab]
            for key in [nil] + keys {
                if let key { _ = model.press(key) }
                let said = hint(model)
                var once = model
                if said.contains("Esc cancels.") {
                    #expect(cancels(once.press(.escape)), "\(composer.kind) after \(String(describing: key)): \(said)")
                } else if said.contains("Esc again: discard and cancel.") {
                    #expect(cancels(once.press(.escape)), "\(composer.kind) after \(String(describing: key))")
                } else if said.contains("Esc twice: discard and cancel.") {
                    #expect(once.press(.escape) == [], "\(composer.kind) after \(String(describing: key))")
                    #expect(once.banner == "Press Escape again to discard what you wrote.")
                    #expect(cancels(once.press(.escape)))
                } else {
                    Issue.record("\(composer.kind) after \(String(describing: key)): no Esc in the hint: \(said)")
                }
            }
            // Written in, the hint does not promise that one Esc cancels.
            var written = welcomed(composer)
            _ = written.press(.character("x"))
            #expect(!hint(written).contains("Esc cancels"), "\(composer.kind): \(hint(written))")
            #expect(hint(written).contains("Esc twice: discard and cancel."))
            #expect(hint(welcomed(composer)).contains("Esc cancels."), "untouched: one Esc cancels")
        }
    }

    @Test func oneMarkerForTheChoiceEnterPicksAndOnlyWhileItDoes() {
        let kinds: [ModalDescription] = [
            signIn, photos,
            .alert(
                title: "Delete?", message: nil, textFields: [],
                actions: [ActionSpec(title: "Keep", preferred: true), ActionSpec(title: "Cancel", style: .cancel)]),
            .actionSheet(
                title: "Pick", message: nil, source: nil,
                actions: [ActionSpec(title: "A"), ActionSpec(title: "None", style: .cancel)]),
            .mailComposer(to: ["ann@example.com"], cc: [], bcc: [], subject: "", body: "", isHTML: false),
            .messageComposer(recipients: ["0639981337"], subject: nil, body: ""),
            .mediaPicker(types: ["audio"], allowsMultiple: false, maxBytes: 1_000),
        ]
        for kind in kinds {
            var model = welcomed(kind)
            model.receive(.update(seq: 3, id: "m1", actions: [true, true, true]))
            for _ in 0...(model.current?.fields.count ?? 0) {
                let open = model.current!
                let lines = screen(model)
                #expect(!lines.contains { $0.contains("(default)") }, "\(kind.kind): \(lines.joined(separator: "\n"))")
                let marked = lines.filter { $0.contains("<- Enter") }
                if open.focus >= open.fields.count, let choice = open.defaultChoice {
                    #expect(marked == ["  [\(choice + 1)] \(open.choices[choice].title)  <- Enter"], "\(kind.kind)")
                } else {
                    #expect(marked.isEmpty, "\(kind.kind) in a field: Enter moves on")
                }
                _ = model.press(.tab)
            }
        }
        // After a refused upload the marker is on Choose other files (KioskUploadTests).
    }

    @Test func aPickersSizeErrorGoesWhenThePathChanges() {
        var model = welcomed(photos)
        type("/tmp/big.jpg", into: &model)
        _ = model.press(.tab)
        #expect(model.press(.enter).isEmpty)
        #expect(model.picked.last?.paths == ["/tmp/big.jpg"])
        let tooLarge = "Up to 2 files, 10.5 MB in all; these are 1 file, 20.0 MB."
        model.uploadFailed(id: "m1", error: tooLarge)
        #expect(screen(model).contains { $0.contains(tooLarge) })
        // Back to the path (Up is harmless if the focus is there already), another file.
        _ = model.press(.up)
        for _ in "big.jpg" { _ = model.press(.backspace) }
        #expect(!screen(model).contains { $0.contains("At most") }, "said about a path no longer there")
        type("small.jpg", into: &model)
        #expect(!screen(model).contains { $0.contains("At most") })
        _ = model.press(.tab)
        #expect(model.press(.enter).isEmpty)
        #expect(model.picked.last?.paths == ["/tmp/small.jpg"])
    }

    @Test func aFieldsErrorIsShownUnderItWithTheFocusThereAndGoesWhenItChanges() throws {
        // A mail: the wrong Cc is said under Cc, not on the top line.
        var mail = welcomed(
            .mailComposer(to: ["ann@example.com"], cc: ["bob"], bcc: [], subject: "Hi", body: "", isHTML: false))
        for _ in 0..<5 { _ = mail.press(.tab) }
        #expect(mail.press(.character("3")) == [])
        var lines = screen(mail)
        let cc = try #require(lines.firstIndex { $0.hasPrefix("> Cc: bob") }, "focus on Cc")
        #expect(lines[cc + 1] == "    ^ Not a mail address: bob")
        #expect(lines.filter { $0.contains("Not a mail address") }.count == 1, "said once")
        #expect(mail.banner == nil)
        #expect(lines[2] == "== New mail ==", "nothing above the title")
        // Another field's edit leaves it; its own edit clears it.
        _ = mail.press(.up)
        type(", cy@example.com", into: &mail)
        #expect(screen(mail).contains("    ^ Not a mail address: bob"))
        _ = mail.press(.tab)
        _ = mail.press(.backspace)
        lines = screen(mail)
        #expect(!lines.contains { $0.contains("Not a mail address") })
        #expect(lines.contains("> Cc: bo_"))

        // A message: under To.
        var message = welcomed(.messageComposer(recipients: ["not a number"], subject: nil, body: "Hi"))
        for _ in 0..<2 { _ = message.press(.tab) }
        #expect(message.press(.character("2")) == [])
        lines = screen(message)
        let to = try #require(lines.firstIndex { $0.hasPrefix("> To: not a number") })
        #expect(lines[to + 1] == "    ^ Not a phone number or address: not a number")
        #expect(message.banner == nil)

        // A picker: a path that cannot be read is said under Files, which gets the focus back.
        var picker = welcomed(photos)
        type("/nope.jpg", into: &picker)
        _ = picker.press(.tab)
        _ = picker.press(.enter)
        picker.uploadFailed(id: "m1", error: "Cannot read /nope.jpg")
        lines = screen(picker)
        let files = try #require(lines.firstIndex { $0.hasPrefix("> Files: /nope.jpg_") }, "focus on Files")
        #expect(lines[files + 1] == "    ^ Cannot read /nope.jpg")
        #expect(picker.current?.focus == 0)

        // What is not about a field is not put under one: a host error, fresh, on the top line.
        picker.receive(.error(seq: 5, ProtocolError(.rateLimited, "slow down")))
        lines = screen(picker)
        #expect(lines[2] == "ERROR: host: slow down  (12:00:00)", "with its time, though it came once")
        #expect(lines[files + 2] == "    ^ Cannot read /nope.jpg")
    }
}
