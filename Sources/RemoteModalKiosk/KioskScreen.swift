import Foundation
import RemoteModalProtocol

/// Draws the model as lines of text for a terminal of a given size. Pure.
///
/// The layout: a header with the connection state, a divider as wide as the terminal, the
/// modal on screen (or the controls), a hint that says what the keys do for what is on
/// screen, then the notices, newest first, as many as fit. Below the size the content
/// needs, a "screen too small" screen says how big it must be instead of cutting
/// actions off.
public enum KioskScreen {
    /// What the terminal can show.
    public struct Appearance: Sendable, Equatable {
        /// ANSI colour and bold.
        public var colour: Bool
        /// Box-drawing and block characters (the QR code needs them).
        public var unicode: Bool
        /// Whether the terminal's background is light (`COLORFGBG`): without colour the QR
        /// code's dark modules are then the glyphs, else the light ones are.
        public var lightBackground = false

        /// Creates an appearance.
        /// - Parameters:
        ///   - colour: ANSI colour and bold.
        ///   - unicode: Box-drawing and block characters.
        public init(colour: Bool, unicode: Bool) {
            self.colour = colour
            self.unicode = unicode
        }

        /// Plain text (what tests compare).
        public static let plain = Appearance(colour: false, unicode: true)

        /// From the environment: no colour when `NO_COLOR` is set (any value but empty),
        /// when `TERM` is `dumb` or unset, or when output is not a terminal; no block
        /// characters for `TERM=dumb`.
        /// - Parameters:
        ///   - environment: The variables.
        ///   - isTerminal: Whether standard output is a terminal.
        /// - Returns: The appearance.
        public static func detect(
            environment: [String: String] = ProcessInfo.processInfo.environment,
            isTerminal: Bool = isatty(STDOUT_FILENO) == 1
        ) -> Appearance {
            let term = environment["TERM"] ?? ""
            let dumb = term.isEmpty || term == "dumb"
            let noColour = !(environment["NO_COLOR"] ?? "").isEmpty
            var appearance = Appearance(colour: isTerminal && !dumb && !noColour, unicode: !dumb)
            // rxvt, Konsole and others say "foreground;background" with ANSI numbers; 7 and 15 are light.
            if let background = environment["COLORFGBG"]?.split(separator: ";").last.flatMap({ Int($0) }) {
                appearance.lightBackground = background == 7 || background == 15
            }
            return appearance
        }
    }

    /// How a piece of text looks.
    enum Style: Equatable {
        case plain, bold, dim, title, error, success, info, warning, preferred, link, qr, caret

        var code: String {
            switch self {
            case .plain: ""
            case .bold: "\u{1B}[1m"
            case .dim: "\u{1B}[2m"
            case .title: "\u{1B}[1;36m"
            case .error: "\u{1B}[1;31m"
            case .success: "\u{1B}[32m"
            case .info: "\u{1B}[36m"
            // Bold in the terminal's own colour: yellow was unreadable on light terminals.
            case .warning: "\u{1B}[1m"
            case .preferred: "\u{1B}[1;7m"
            case .link: "\u{1B}[4;36m"
            case .qr: "\u{1B}[30;47m"
            case .caret: "\u{1B}[7m"
            }
        }
    }

    /// One screen line: styled pieces; `whole` lines are never broken (the terminal wraps
    /// them, so copying gives the exact text).
    struct Row {
        var spans: [(text: String, style: Style)]
        var whole = false

        init(_ text: String, _ style: Style = .plain) { spans = [(KioskScreen.printable(text), style)] }
        init(spans: [(text: String, style: Style)], whole: Bool = false) {
            self.spans = spans.map { (KioskScreen.printable($0.text), $0.style) }
            self.whole = whole
        }

        var text: String { spans.map(\.text).joined() }
        var count: Int { spans.reduce(0) { $0 + $1.text.count } }
    }

    /// The smallest width anything is drawn at.
    public static let minimumWidth = 40

    /// The lines to show, as plain text.
    /// - Parameters:
    ///   - model: The state.
    ///   - width: Terminal columns.
    ///   - height: Terminal rows.
    /// - Returns: At most `height` lines; none longer than `width` but a whole address
    ///   (which the terminal wraps, taking the rows it needs).
    public static func lines(_ model: KioskModel, width: Int, height: Int) -> [String] {
        render(model, width: width, height: height, appearance: .plain)
    }

    /// The lines to show, with ANSI codes when `appearance.colour`.
    /// - Parameters:
    ///   - model: The state.
    ///   - width: Terminal columns.
    ///   - height: Terminal rows.
    ///   - appearance: What the terminal can show.
    /// - Returns: The lines, fitting `height` rows of `width` columns.
    public static func render(_ model: KioskModel, width: Int, height: Int, appearance: Appearance) -> [String] {
        layout(model, width: width, height: height, appearance: appearance).map { row in
            row.spans.map { span in
                // The caret is reverse video even without colour (NO_COLOR asks for no colour).
                (appearance.colour || (span.style == .caret && appearance.unicode)) && span.style != .plain
                    && !span.text.isEmpty
                    ? span.style.code + span.text + "\u{1B}[0m" : span.text
            }.joined()
        }
    }

    /// Whether the modal on screen (or the controls) is shown whole at this size; keys are
    /// ignored while it is not.
    /// - Parameters:
    ///   - model: The state.
    ///   - width: Terminal columns.
    ///   - height: Terminal rows.
    /// - Returns: `false` when the "screen too small" screen is shown.
    public static func fits(_ model: KioskModel, width: Int, height: Int) -> Bool {
        layout(model, width: width, height: height, appearance: .plain).first?.text != tooSmallHeading
    }

    /// Rows a line takes in a terminal of `width` columns.
    static func height(of row: Row, width: Int) -> Int { max(1, (row.count + width - 1) / width) }

    /// Wrapped rows cut to `room` rows, the last one ending in an ellipsis when cut.
    static func cut(_ rows: [Row], to room: Int, width: Int) -> [Row] {
        guard rows.count > room, room > 0 else { return rows }
        var kept = Array(rows.prefix(room))
        let last = kept[room - 1]
        kept[room - 1] = Row(
            String(last.text.prefix(max(0, width - 1))) + "\u{2026}", last.spans.first?.style ?? .plain)
        return kept
    }

    static func layout(_ model: KioskModel, width: Int, height: Int, appearance: Appearance) -> [Row] {
        let width = max(1, width)
        var top: [Row] = [header(model, width: width, appearance: appearance)]
        top.append(Row(String(repeating: appearance.unicode ? "\u{2500}" : "-", count: width), .dim))
        // The words about the connection take the rows the screen has left, cut to fit: at
        // 40x12 they made every outage "Terminal too small", its real reason hidden and keys
        // ignored (issue 32's cold trial). The header's state word says it when no row is left.
        var detailRows: [Row] = []
        if let detail = model.connectionDetail, model.connection != .connected {
            let refused = model.connection == .unauthorized || model.connection == .refused
            detailRows = wrap(Row(detail, refused ? .error : .warning), width: width)
        }
        var body: [Row] = []
        if let open = model.current {
            body = modalRows(open, model: model, width: width)
        } else {
            body.append(Row("Controls (press a number):", .bold))
            if model.controls.isEmpty { body.append(Row("  (none yet)", .dim)) }
            for (index, control) in model.controls.enumerated() {
                let title = KioskModel.clean(control.title)
                var spans: [(String, Style)] = [("  [\(index + 1)] \(title)", control.enabled ? .plain : .dim)]
                if model.keptTaps.contains(where: { $0.id == control.id }) {
                    spans.append(("  (saved: goes when the host is back)", .warning))
                } else if control.busy {
                    spans.append(("  (busy...)", .dim))
                } else if !control.enabled {
                    spans.append(("  (disabled)", .dim))
                }
                body.append(Row(spans: spans))
            }
            if model.quitKey == .twice { body.append(Row("Ctrl-C twice closes the kiosk.", .dim)) }
        }
        // A composer's key hint takes the rows left, first: Mail (its four address lines,
        // body and three choices) then fits 40x12 without it, rather than "too small".
        var keyHint: [Row] = []
        if let open = model.current, isComposer(open), let last = body.popLast() { keyHint = wrap(last, width: width) }
        let essential = (top + body).flatMap { $0.whole ? [$0] : wrap($0, width: width) }
        let needed = essential.reduce(0) { $0 + Self.height(of: $1, width: width) }
        guard width >= minimumWidth, needed <= height else {
            return tooSmall(
                width: width, height: height, needed: max(needed, 10),
                dialog: model.current.map { $0.escapeRefusal == nil } ?? false, quitKey: model.quitKey)
        }
        var rows = essential
        var room = height - needed
        if !detailRows.isEmpty, room >= 1 {
            let shown = cut(detailRows, to: room, width: width)
            rows.insert(contentsOf: shown, at: 2)
            room -= shown.count
        }
        if keyHint.count <= room {
            rows += keyHint
            room -= keyHint.count
        }
        if let banner = model.banner, room >= 1 {
            // The words about the last key, under the divider, in the rows left: they never
            // make the dialog "too small" (Esc on the requester's copy at 40x12 was stuck there).
            let said = cut(wrap(Row(banner, .warning), width: width), to: room, width: width)
            rows.insert(contentsOf: said, at: 2)
            room -= said.count
        }
        if let url = model.current?.url, appearance.unicode {
            let at = (rows.firstIndex { $0.whole } ?? rows.count - 1) + 1
            let drawn = KioskQR.rows(url, room: room, width: width, needed: needed, appearance: appearance)
            rows.insert(contentsOf: drawn, at: at)
            room -= drawn.count
        }
        var listed = model.notices
        if let fresh = model.freshNotice, room >= 1 {
            // The newest notice on the top line, under the words about the connection, for
            // its lifetime (cut to three rows, its time kept); the list leaves it out meanwhile.
            let drawn = fitted(fresh, indent: "", width: width, rows: min(3, room))
            let at = rows.firstIndex { $0.text.hasPrefix("== ") || $0.text.hasPrefix("Controls (") } ?? 2
            rows.insert(contentsOf: drawn, at: at)
            room -= drawn.count
            listed.removeAll { $0.serial == fresh.serial }
        }
        if !listed.isEmpty, room >= 3 {
            var notices: [Row] = [Row(""), Row("Notices (newest first):", .bold)]
            for notice in listed.reversed() {
                let left = room - notices.count
                guard left > 0 else { break }
                // The last one that fits is cut with its time kept, not in the middle of it.
                notices += fitted(notice, indent: "  ", width: width, rows: left)
            }
            rows += notices
        } else if let newest = listed.last, room >= 1 {
            // A small terminal (40x12): the newest notice alone, without its heading, cut to
            // the rows left (its time kept), rather than none at all.
            rows += fitted(newest, indent: "", width: width, rows: room)
        }
        return rows
    }

    private static func header(_ model: KioskModel, width: Int, appearance: Appearance) -> Row {
        let who = model.name + (model.group.map { " (\($0))" } ?? "")
        let state = model.connection.rawValue
        let style: Style =
            switch model.connection {
            case .connected: .success
            case .connecting, .reconnecting: .warning
            case .unauthorized, .refused: .error
            }
        var left = "remote-modal kiosk | \(who) | "
        if left.count + state.count > width { left = "\(who) | " }
        return Row(spans: [(left, .bold), (state, style)])
    }

    /// The first line of the screen shown when the kiosk does not fit.
    static let tooSmallHeading = "Screen too small"

    /// `dialog`: a dialog Esc cancels is on show (an alert without Cancel is not one). The
    /// words are for a passer-by, who cannot enlarge anything ("Enlarge the window" told
    /// them to), and for whoever runs the kiosk.
    private static func tooSmall(width: Int, height: Int, needed: Int, dialog: Bool, quitKey: KioskModel.QuitKey)
        -> [Row]
    {
        let keys =
            (dialog ? "Keys are ignored until then, but Esc cancels the dialog." : "Keys are ignored until then.")
            + (quitKey == .twice ? " Ctrl-C twice closes the kiosk." : "")
        // What keys do first: on the smallest screens the rest is cut.
        let text = [
            Row(tooSmallHeading, .error),
            Row(keys),
            Row(
                "This screen shows \(width)x\(height) characters; the kiosk needs \(minimumWidth)x\(needed). "
                    + "Whoever runs it: enlarge the window or make the font smaller."),
        ]
        return Array(text.flatMap { wrap($0, width: width) }.prefix(max(1, height)))
    }

    static func title(_ open: KioskModel.OpenModal) -> String { KioskModel.title(of: open.modal) }

    /// Whether the dialog is a mail or message composer (its key hint is drawn only if it fits).
    static func isComposer(_ open: KioskModel.OpenModal) -> Bool {
        switch open.modal {
        case .mailComposer, .messageComposer: true
        default: false
        }
    }

    static func modalRows(_ open: KioskModel.OpenModal, model: KioskModel, width: Int) -> [Row] {
        var rows: [Row] = [Row("== \(title(open)) ==", .title)]
        if let note = open.note {
            rows += note.split(separator: "\n", omittingEmptySubsequences: false).map { Row(String($0)) }
        }
        if let url = open.url { rows.append(Row(spans: [(url, .link)], whole: true)) }
        let onChoices = open.focus >= open.fields.count
        let busy = open.uploading || open.answered
        for (index, field) in open.fields.enumerated() {
            let focused = open.focus == index && !busy
            let marker = focused ? "> " : "  "
            let text = field.secret ? String(repeating: "*", count: field.text.count) : field.text
            let label: [(String, Style)] = [
                (marker, .bold), ("\(field.label)", focused ? .bold : .plain),
                (field.hint.map { " (\($0))" } ?? "", .dim), (field.multiline ? ":" : ": ", focused ? .bold : .plain),
            ]
            if field.multiline {
                rows.append(Row(spans: label))
                var start = 0
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                for line in lines {
                    let caret =
                        focused && (start...(start + line.count)).contains(field.caret) ? field.caret - start : nil
                    rows.append(Row(spans: [("    | ", .plain)] + caretSpans(String(line), caret: caret)))
                    start += line.count + 1
                }
            } else {
                rows.append(Row(spans: label + caretSpans(text, caret: focused ? field.caret : nil)))
            }
            // Right under the field it concerns (the top line is for what concerns the kiosk).
            if let error = field.error { rows.append(Row("    ^ " + error, .error)) }
        }
        if let error = open.uploadError {
            rows.append(Row("The host did not take these files: " + error, .error))
        }
        if let upload = open.upload, open.uploadError == nil {
            // A refused upload's progress line would say it still goes: it stopped.
            rows += uploadRows(upload, open: open, connection: model.connection)
        } else if open.reading {
            rows.append(Row("Reading the files...", .info))
        }
        let refused = open.uploadError != nil && open.upload != nil
        if refused {
            // Enter chooses other files: the same ones would only be refused again. Refused
            // for what they are (their kind, their size), no retry is offered at all.
            rows.append(Row("  [1] Cancel"))
            let other = open.uploadRefusedForGood ? 2 : 3
            if other == 3 { rows.append(Row("  [2] Try again")) }
            rows.append(Row(spans: [("  [\(other)] Choose other files", .preferred), (enterMarker, .bold)]))
        } else if !busy {
            for (index, choice) in open.choices.enumerated() {
                let isDefault = open.defaultChoice == index && onChoices
                var spans: [(String, Style)] = [("  ", .plain)]
                let title = KioskModel.clean(choice.title)
                if !choice.enabled {
                    // Just typed: the host has not judged it yet; nobody is refused.
                    let checking = model.checking(open)
                    let waiting = model.connection == .connected ? "(checking\u{2026})" : "(waits for the host)"
                    let state = checking ? waiting : "(disabled)"
                    spans.append(("[\(index + 1)] \(title) \(state)", .dim))
                    // The host's words for its rule, under the choice, while it is disabled.
                    if !checking, let explanation = choice.explanation {
                        rows.append(Row(spans: spans))
                        rows.append(Row("      " + KioskModel.clean(explanation), .info))
                        continue
                    }
                } else if choice.preferred || isDefault {
                    // Stands out from the start; the marker only where Enter picks it (in a
                    // field Enter moves on).
                    spans.append(("[\(index + 1)] \(title)", .preferred))
                    if isDefault { spans.append((enterMarker, .bold)) }
                } else {
                    spans.append(("[\(index + 1)] \(title)", choice.style == .destructive ? .error : .plain))
                }
                rows.append(Row(spans: spans))
            }
        }
        // The choice is named: "(answer kept)" alone left the person to guess which it was.
        let answer = open.answerTitle.map { "answer \u{201C}\(KioskModel.clean($0))\u{201D}" } ?? "answer"
        switch open.answer {
        case .sent: rows.append(Row("(\(answer) sent, waiting for the host)", .info))
        case .kept: rows.append(Row("(\(answer) kept: it goes to the host as soon as it is back)", .warning))
        case .none: break
        }
        if model.connection != .connected {
            rows.append(Row("(\(model.connection.rawValue): this dialog stays open)", .warning))
        }
        rows.append(Row(hint(open, refused: refused), .dim))
        return rows
    }

    /// A field's text with its caret: reverse video on the character it stands before, or
    /// an underscore after the last one.
    static func caretSpans(_ text: String, caret: Int?) -> [(text: String, style: Style)] {
        guard let caret else { return [(text, .plain)] }
        let characters = Array(text)
        guard caret < characters.count else { return [(text + "_", .plain)] }
        return [
            (String(characters[..<caret]), .plain), (String(characters[caret]), .caret),
            (String(characters[(caret + 1)...]), .plain),
        ].filter { !$0.0.isEmpty }
    }

    private static func uploadRows(
        _ upload: UploadProgress, open: KioskModel.OpenModal, connection: KioskModel.Connection
    )
        -> [Row]
    {
        let total = max(1, upload.total)
        let fraction = Double(upload.acknowledged) / Double(total)
        let filled = min(20, Int((fraction * 20).rounded(.down)))
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "]"
        let amount = "\(KioskModel.format(upload.acknowledged)) of \(KioskModel.format(upload.total))"
        let percent = "\(Int((fraction * 100).rounded(.down)))%"
        let files = upload.names.count == 1 ? upload.names[0] : "\(upload.names.count) files"
        if open.answered {
            return [Row("Sent \(files): \(KioskModel.format(upload.total)), every byte confirmed.", .success)]
        }
        var rows = [Row(spans: [("Uploading \(files) \(bar) \(percent)  ", .bold), (amount + " received", .plain)])]
        if connection != .connected {
            rows.append(
                Row("Paused: \(connection.rawValue). The upload goes on from here when the host is back.", .warning))
        }
        return rows
    }

    /// The one mark of the choice Enter picks, shown only while Enter picks it.
    static let enterMarker = "  <- Enter"

    /// What the keys do for the modal on screen; only what is true.
    static func hint(_ open: KioskModel.OpenModal, refused: Bool) -> String {
        if refused, open.uploadRefusedForGood { return "1 or Esc cancels; 2 or Enter chooses other files." }
        if refused { return "1 or Esc cancels; 2 tries the same files again; 3 or Enter chooses other files." }
        if open.uploading { return "Esc cancels the upload." }
        if open.answer == .sent { return "Waiting for the host to confirm your answer." }
        if open.answered, open.escapeRefusal != nil { return "Your answer goes when the host is back." }
        if open.answered { return "Esc cancels instead: your answer has not gone yet." }
        if open.refusedURL != nil { return "1 or Esc cancels." }
        if open.enterExplained { return "Sign in with the address above on a phone or a computer. Esc cancels." }
        var parts: [String] = []
        if open.focus < open.fields.count {
            parts.append(open.fields[open.focus].multiline ? "Enter: new line, Tab: next" : "Enter or Tab: next")
            if open.focus > 0 { parts.append("Up: back") }
        } else {
            if let index = open.defaultChoice {
                parts.append("Number or Enter (\(open.choices[index].title)) picks")
            } else if !open.choices.isEmpty {
                parts.append("Pick with a number")
            }
            if !open.fields.isEmpty { parts.append("Up: fields") }
        }
        if open.escapeRefusal == nil {
            // A composer someone wrote in asks first (`KioskModel.press`).
            if open.escapeAsksFirst {
                parts.append("Esc twice: discard and cancel")
            } else if open.discardArmed {
                parts.append("Esc again: discard and cancel")
            } else {
                parts.append("Esc cancels")
            }
        }
        return parts.joined(separator: ". ") + "."
    }
}
