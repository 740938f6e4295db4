import Foundation
import RemoteModalClient
import RemoteModalProtocol

extension KioskModel {
    /// Applies a key press.
    /// - Parameters:
    ///   - key: The key.
    ///   - now: Seconds on the clock `apply` was given (to tell a key meant for a screen that went).
    /// - Returns: What to ask of the client core.
    public mutating func press(_ key: Key, now: Double = 0) -> [KioskIntent] {
        if key == .interrupt { return interrupt(now: now) }
        if now - changedByItself < Self.lateKeyWindow, acts(key) {
            // Pressed for the screen that just went (another screen answered it): not acted
            // on this one, said in words.
            say(.info, "That key came as the screen changed, so nothing was done. Press it again if you meant it.")
            return []
        }
        tick(now: now)
        clearBanner()
        pendingChoice = nil
        guard var open = modals.first else { return pressOnControls(key, now: now) }
        if key == .escape, open.answer == .sent {
            // The answer went: a cancel now would be a second, different answer, which a
            // client must not send (protocol.md section 12, duty 4), and the host would take the
            // first anyway. The dialog stays until the host's dismiss, said in words (as the
            // page does); a silent host is the heartbeat's to notice.
            hint(Self.sentCannotBeTakenBack, on: open)
            return []
        }
        if key == .escape, open.answer == .kept, open.escapeRefusal != nil {
            // Its cancel would end it for every member (a group approval), kept or not; the
            // person chose already, so "choose one" would be untrue.
            hint("Escape does not close this: your answer goes when the host is back.", on: open)
            return []
        }
        // Kept, not sent: the cancel replaces it (the client core keeps one answer a modal).
        if key == .escape, open.answered || open.uploading { return leave(open) }
        defer { if !modals.isEmpty, modals[0].id == open.id { modals[0] = open } }
        if open.uploadError != nil, open.upload != nil {
            // Refused for good: [1] Cancel, [2] Choose other files; else [2] is Try again.
            let final = open.uploadRefusedForGood
            switch key {
            case .character("1"), .escape: return leave(open)
            case .character("2") where !final:
                open.uploadError = nil
                return [.retryUpload(id: open.id)]
            case .character("3") where !final, .character("2"), .enter:
                // Back to the paths (the default: the same files would be refused again).
                if !open.fields.isEmpty { open.fields[0].error = open.uploadError }
                open.uploadError = nil
                open.upload = nil
                open.answer = .none
                open.focus = 0
                return []
            default: return []
            }
        }
        guard !open.answered, !open.uploading else { return [] }
        if key != .escape { open.discardArmed = false }
        let onChoices = open.focus >= open.fields.count
        switch key {
        case .escape:
            if let refusal = open.escapeRefusal {
                hint(refusal, on: open)
                return []
            }
            if open.escapeAsksFirst {
                open.discardArmed = true
                hint("Press Escape again to discard what you wrote.", on: open)
                return []
            }
            if let cancel = open.choices.firstIndex(where: { $0.style == .cancel && $0.enabled }) {
                return choose(&open, cancel, now: now)
            }
            return leave(open)
        case .tab, .down:
            move(&open, to: min(open.fields.count, open.focus + 1))
        case .backTab, .up:
            move(&open, to: max(0, open.focus - 1))
        case .enter:
            if onChoices {
                if let choice = open.defaultChoice { return choose(&open, choice, now: now) }
                if let preferred = open.choices.firstIndex(where: { $0.preferred }) {
                    refuse(preferred, in: open, now: now)
                } else if case .webAuthentication = open.modal {
                    // Said in the dialog's own hint row: the QR code keeps its room, and the
                    // words go with the dialog.
                    open.enterExplained = true
                }
                return []
            }
            if open.fields[open.focus].multiline { return edit(&open, now: now) { $0.insert("\n") } }
            move(&open, to: open.focus + 1)
        case .backspace: return edit(&open, now: now) { $0.deleteBackward() }
        case .delete: return edit(&open, now: now) { $0.deleteForward() }
        case .left, .right, .home, .end:
            guard !onChoices else { return [] }
            let field = open.fields[open.focus]
            let count = field.text.count
            let caret: Int =
                switch key {
                case .left: max(0, field.caret - 1)
                case .right: min(count, field.caret + 1)
                case .home: 0
                default: count
                }
            open.fields[open.focus].caret = caret
        case .character(let character):
            if onChoices {
                guard let number = character.wholeNumberValue, open.choices.indices.contains(number - 1) else {
                    return []
                }
                guard open.choices[number - 1].enabled else {
                    refuse(number - 1, in: open, now: now)
                    return []
                }
                return choose(&open, number - 1, now: now)
            }
            return edit(&open, now: now) { $0.insert(String(character)) }
        case .insert, .pageUp, .pageDown, .function, .interrupt:
            // Keys a form has no use for: ignored, never typed (F1 does not cancel).
            return []
        }
        return []
    }

    /// Notes that the person acted (tapped, answered, picked) on the screen on show now.
    private mutating func acted(now: Double) {
        lastOwnAction = now
        ownActionScreen = modals.first?.id ?? ""
    }

    /// The keys a dialog still takes while the terminal is too small to show it: Escape
    /// (and so its cancel) alone; no other key goes to a form the person cannot see.
    /// - Parameters:
    ///   - key: The key.
    ///   - now: Seconds on the client's clock.
    /// - Returns: What to ask of the client core.
    public mutating func pressHidden(_ key: Key, now: Double = 0) -> [KioskIntent] {
        guard key == .interrupt || (key == .escape && !modals.isEmpty) else { return [] }
        return press(key, now: now)
    }

    /// Ctrl-C: a passer-by's single press never closes the kiosk (the cold trial's kiosk
    /// quit on one, leaving a shell prompt on a public screen); words say what it does.
    mutating func interrupt(now: Double) -> [KioskIntent] {
        switch quitKey {
        case .never:
            banner = Self.lockedWords
            return []
        case .twice:
            if now - interruptedAt <= Self.quitWindow { return [.quit] }
            interruptedAt = now
            banner = Self.quitAgainWords
            return []
        }
    }

    /// The words on top after one Ctrl-C.
    static let quitAgainWords = "Press Ctrl-C again within 3 seconds to close the kiosk."
    /// The words on top after Ctrl-C on a locked kiosk.
    static let lockedWords = "This kiosk does not close from the keyboard."

    /// Whether a key would act on a screen (choose, tap, leave, move on) rather than type.
    func acts(_ key: Key) -> Bool {
        switch key {
        case .character:
            guard let open = modals.first else { return true }
            return open.focus >= open.fields.count || open.answered || open.uploadError != nil
        case .enter, .escape: return true
        default: return false
        }
    }

    /// Says why a disabled choice cannot be chosen, blaming nobody while the host checks: a
    /// choice pressed while the host has not yet judged what was just typed is kept, and
    /// chosen as soon as the host enables it (`takeDueChoice`), as the page does.
    mutating func refuse(_ index: Int, in open: OpenModal, now: Double) {
        let choice = open.choices[index]
        let words: String
        // Only what depends on typed text waits for the host's check: a choice of a dialog
        // without fields (a requester's own Approve) is disabled for another reason, said below
        // (the second cold trial: "chosen once the host is back" for an Approve that never is).
        let typedRule = !open.fields.isEmpty
        if typedRule, open.hostChecking || now - open.typedAt < Self.checkWindow {
            // The host has not judged what was typed (a silent one neither): kept, never the rule.
            words = Self.checkingWords(choice.title, connected: connection == .connected)
            pendingChoice = PendingChoice(id: open.id, index: index, until: open.typedAt + Self.checkWindow)
        } else if typedRule, connection != .connected {
            // Kept, as the page keeps it (the second cold trial: Enter on Sign in typed
            // offline was lost): the host judges the fields once it is back, then it is chosen
            // or the host's rule is said (`takeDueChoice`; its window starts at the welcome).
            words = Self.keptWhileOffline(choice.title)
            pendingChoice = PendingChoice(id: open.id, index: index, until: .infinity)
        } else if let explanation = choice.explanation {
            words = "\u{201C}\(choice.title)\u{201D} is not available yet: \(Self.clean(explanation))"
        } else {
            let reason = open.fields.isEmpty ? "right now" : "with what is filled in"
            words = "\u{201C}\(choice.title)\u{201D} is not available \(reason)."
        }
        hint(words, on: open)
    }

    /// What the top line says of a choice kept while the host judges what was typed: checking
    /// while the host is connected, waiting for it while it is not.
    /// What a disabled choice pressed while the host is not connected says: it is kept.
    static func keptWhileOffline(_ title: String) -> String {
        "Saved: \u{201C}\(title)\u{201D} is chosen once the host is back and has checked what is filled in."
    }

    static func checkingWords(_ title: String, connected: Bool) -> String {
        connected
            ? "Checking with the host whether \u{201C}\(title)\u{201D} can be chosen..."
            : "\u{201C}\(title)\u{201D} waits for the host, which is not answering: it is chosen once the host is back."
    }

    private func move(_ open: inout OpenModal, to focus: Int) {
        open.focus = focus
        if open.fields.indices.contains(focus) { open.fields[focus].caret = open.fields[focus].text.count }
    }

    /// Changes the focused field's text at its caret; what was said about the old text goes.
    private func edit(_ open: inout OpenModal, now: Double, _ change: (inout Editor) -> Void) -> [KioskIntent] {
        guard open.fields.indices.contains(open.focus) else { return [] }
        var editor = Editor(text: Array(open.fields[open.focus].text), caret: open.fields[open.focus].caret)
        change(&editor)
        open.fields[open.focus].text = String(editor.text)
        open.fields[open.focus].caret = editor.caret
        open.fields[open.focus].error = nil
        guard case .alert = open.modal else { return [] }
        open.typedAt = now
        return [.type(id: open.id, textFields: open.fields.map(\.text))]
    }

    /// Cancels the modal on screen with `failure` `cancelled` and takes it off the screen.
    mutating func leave(_ open: OpenModal) -> [KioskIntent] {
        modals.removeAll { $0.id == open.id }
        abandoned.insert(open.id)
        return [.answer(id: open.id, .failure(.cancelled, nil))]
    }

    private mutating func pressOnControls(_ key: Key, now: Double) -> [KioskIntent] {
        if connection == .refused || connection == .unauthorized, key == .character("r") || key == .character("R") {
            return [.retryNow]
        }
        guard case .character(let character) = key, let number = character.wholeNumberValue,
            controls.indices.contains(number - 1)
        else { return [] }
        let control = controls[number - 1]
        guard control.enabled else {
            banner = "\u{201C}\(Self.clean(control.title))\u{201D} is not available right now."
            return []
        }
        acted(now: now)
        if connection == .reconnecting, keptTapLifetime == 0 {
            say(.error, Self.notConnected)
            return []
        }
        if connection == .reconnecting {
            // Kept, once per control, and sent when the host is back (`takeDueChoice`).
            if !keptTaps.contains(where: { $0.id == control.id }) {
                keptTaps.append(KeptTap(id: control.id, title: Self.clean(control.title), at: now))
            }
            banner = Self.keptWords(keptTaps)
            return []
        }
        if connection == .connected {
            // Said at once: a silent host takes up to 9 s to be noticed by the heartbeat.
            let title = Self.clean(control.title)
            let words = "\u{201C}\(title)\u{201D}: waiting for the host..."
            waitingTap = WaitingTap(title: title, since: now, words: words)
            banner = words
        }
        return [.tap(control.id)]
    }

    /// A choice pressed while the host was checking, now enabled: chosen; past its window and
    /// still disabled: refused in words; taps kept while reconnecting, once connected: sent.
    /// Call after each update from the client core.
    /// - Parameter now: The client's clock.
    /// - Returns: What to do (the answer, the kept taps), if anything.
    public mutating func takeDueChoice(now: Double) -> [KioskIntent] {
        tick(now: now)
        return takeKeptTaps(now: now) + dueChoice(now: now)
    }

    /// The taps kept while reconnecting, once the host is back: each sent once, in order, and
    /// said; the last one waits for the host's answer as a tap made now does.
    private mutating func takeKeptTaps(now: Double) -> [KioskIntent] {
        guard connection == .connected, !keptTaps.isEmpty else { return [] }
        let taps = keptTaps
        keptTaps = []
        if banner == Self.keptWords(taps) { banner = nil }
        let titles = Self.quoted(taps.map(\.title))
        notify(.info, "Sent what was saved while the host was away: \(titles).")
        if let last = taps.last {
            let words = "\u{201C}\(last.title)\u{201D}: waiting for the host..."
            waitingTap = WaitingTap(title: last.title, since: now, words: words)
            banner = words
        }
        return taps.map { .tap($0.id) }
    }

    private mutating func dueChoice(now: Double) -> [KioskIntent] {
        guard let pending = pendingChoice else { return [] }
        guard let index = modals.firstIndex(where: { $0.id == pending.id }), !modals[index].answered,
            modals[index].choices.indices.contains(pending.index)
        else {
            pendingChoice = nil
            return []
        }
        if modals[index].choices[pending.index].enabled {
            pendingChoice = nil
            clearBanner()
            var open = modals[index]
            let intents = choose(&open, pending.index, now: now)
            modals[index] = open
            return intents
        }
        // Still checking: the host has not been heard since the values went (a silent one is
        // the connection's to tell), or the window for a host without the heartbeat runs.
        if modals[index].hostChecking { return [] }
        guard now >= pending.until else { return [] }
        pendingChoice = nil
        refuse(pending.index, in: modals[index], now: now)
        return []
    }

    /// Chooses a choice: the form builds the answer from the fields as filled (by meaning,
    /// the choice by its title); what it refuses is said under the field it concerns.
    private mutating func choose(_ open: inout OpenModal, _ index: Int, now: Double) -> [KioskIntent] {
        guard open.choices.indices.contains(index), open.choices[index].enabled else { return [] }
        let choice = open.choices[index]
        var form = open.form
        // Each field where it is shown (two alert fields may share a meaning).
        for (index, field) in open.fields.enumerated() where field.key != nil {
            try? form.fill(fieldAt: index, field.text)
        }
        if case .mailComposer(_, _, _, _, let body, true, _) = open.modal, let edited = form.text(.body) {
            // An HTML body left as shown goes back as the host wrote it; an edited one as HTML
            // made from the text.
            try? form.fill(.body, edited == KioskHTML.readableText(body) ? body : KioskHTML.html(fromText: edited))
        }
        if Self.isPicker(open.modal), choice.style != .cancel {
            for index in open.fields.indices { open.fields[index].error = nil }
            open.uploadError = nil
            open.reading = true
            acted(now: now)
            return [.pick(id: open.id, paths: ModalFormText.list(open.fields.first?.text ?? ""))]
        }
        do {
            let reply = try form.reply(choosing: .titled(choice.title))
            open.answer = connection == .connected ? .sent : .kept
            open.answerTitle = choice.title
            open.answerCrossedOutage = false
            acted(now: now)
            return [.answer(id: open.id, reply)]
        } catch {
            if case .invalid(let key) = error.code, let field = open.fields.firstIndex(where: { $0.key == key }) {
                for index in open.fields.indices { open.fields[index].error = nil }
                open.fields[field].error = error.message
                open.focus = field
                open.fields[field].caret = open.fields[field].text.count
            } else {
                hint(error.message, on: open)
            }
            return []
        }
    }
}

/// A field's text and caret while a key edits it.
struct Editor {
    var text: [Character]
    var caret: Int

    init(text: [Character], caret: Int) {
        self.text = text
        self.caret = min(max(0, caret), text.count)
    }

    mutating func insert(_ string: String) {
        text.insert(contentsOf: Array(string), at: caret)
        caret += string.count
    }

    mutating func deleteBackward() {
        guard caret > 0 else { return }
        text.remove(at: caret - 1)
        caret -= 1
    }

    mutating func deleteForward() {
        guard caret < text.count else { return }
        text.remove(at: caret)
    }
}

/// Splitting a comma-separated line as the forms do.
enum ModalFormText {
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
