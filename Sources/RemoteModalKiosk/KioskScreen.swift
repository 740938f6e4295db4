import Foundation
import RemoteModalProtocol
import RemoteModalQRCode

/// Draws the model as lines of text for a terminal of a given size. Pure.
///
/// The layout: a header with the connection state, a divider as wide as the terminal, the
/// modal on screen (or the controls), a hint that says what the keys do for what is on
/// screen, then the notices, newest first, as many as fit. Below the size the content
/// needs, a "terminal too small" screen says how big it must be instead of cutting
/// actions off.
public enum KioskScreen {
    /// What the terminal can show.
    public struct Appearance: Sendable, Equatable {
        /// ANSI colour and bold.
        public var colour: Bool
        /// Box-drawing and block characters (the QR code needs them).
        public var unicode: Bool

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
            return Appearance(colour: isTerminal && !dumb && !noColour, unicode: !dumb)
        }
    }

    /// How a piece of text looks.
    enum Style: Equatable {
        case plain, bold, dim, title, error, success, info, warning, preferred, link, qr

        var code: String {
            switch self {
            case .plain: ""
            case .bold: "\u{1B}[1m"
            case .dim: "\u{1B}[2m"
            case .title: "\u{1B}[1;36m"
            case .error: "\u{1B}[1;31m"
            case .success: "\u{1B}[32m"
            case .info: "\u{1B}[36m"
            case .warning: "\u{1B}[1;33m"
            case .preferred: "\u{1B}[1;7m"
            case .link: "\u{1B}[4;36m"
            case .qr: "\u{1B}[30;47m"
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

    /// Text from the host (titles, messages, notices, other clients' names) made safe to
    /// print: control characters become visible pictures (ESC shows as `␛`), so nothing the
    /// host or another client sends can move the cursor, recolour or retitle the terminal.
    /// The kiosk's own colour codes are added after this, in `render`.
    /// - Parameter text: Text to show.
    /// - Returns: The text with every C0, DEL and C1 control and bidi override replaced.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00..<0x20: output.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: output.append("\u{2421}")
            case _ where isControl(scalar): output.append("\u{FFFD}")
            default: output.append(scalar)
            }
        }
        return String(output)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
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
                appearance.colour && span.style != .plain && !span.text.isEmpty
                    ? span.style.code + span.text + "\u{1B}[0m" : span.text
            }.joined()
        }
    }

    /// Rows a line takes in a terminal of `width` columns.
    static func height(of row: Row, width: Int) -> Int { max(1, (row.count + width - 1) / width) }

    static func layout(_ model: KioskModel, width: Int, height: Int, appearance: Appearance) -> [Row] {
        let width = max(1, width)
        var top: [Row] = [header(model, width: width, appearance: appearance)]
        top.append(Row(String(repeating: appearance.unicode ? "\u{2500}" : "-", count: width), .dim))
        if let banner = model.banner { top += wrap(Row(banner, .warning), width: width) }
        if model.connection == .unauthorized {
            top += wrap(
                Row("The host refused this kiosk's token: start it with --token (ask the host's operator).", .error),
                width: width)
        }
        var body: [Row] = []
        if let open = model.current {
            body = modalRows(open, model: model, width: width)
        } else {
            body.append(Row("Controls (press a number):", .bold))
            if model.controls.isEmpty { body.append(Row("  (none yet)", .dim)) }
            for (index, control) in model.controls.enumerated() {
                var spans: [(String, Style)] = [("  [\(index + 1)] \(control.title)", control.enabled ? .plain : .dim)]
                if control.busy {
                    spans.append(("  (busy...)", .dim))
                } else if !control.enabled {
                    spans.append(("  (disabled)", .dim))
                }
                body.append(Row(spans: spans))
            }
            body.append(Row("Ctrl-C quits.", .dim))
        }
        let essential = (top + body).flatMap { $0.whole ? [$0] : wrap($0, width: width) }
        let needed = essential.reduce(0) { $0 + Self.height(of: $1, width: width) }
        guard width >= minimumWidth, needed <= height else {
            return tooSmall(width: width, height: height, needed: max(needed, 10))
        }
        var rows = essential
        var room = height - needed
        if let url = model.current?.url, appearance.unicode {
            // A 4-module quiet zone when there is room, else 2 (enough on a lit screen).
            let at = (rows.firstIndex { $0.whole } ?? rows.count - 1) + 1
            if let code = try? QRCode(url, correction: .low) {
                let drawn = [4, 2].lazy.map { halfBlocks(code, quietZone: $0) }.first { $0.count <= room }
                if let drawn {
                    rows.insert(contentsOf: drawn.map { Row(spans: [($0, .qr)]) }, at: at)
                    room -= drawn.count
                } else if room >= 1 {
                    let side = (code.size + 4 + 1) / 2
                    let size = "\(max(minimumWidth, code.size + 4))x\(needed + side)"
                    rows.insert(Row("(A QR code of this address shows in a \(size) terminal.)", .dim), at: at)
                    room -= 1
                }
            } else if room >= 1 {
                rows.insert(Row("(No QR code: the address is too long for one.)", .dim), at: at)
                room -= 1
            }
        }
        if !model.notices.isEmpty, room >= 3 {
            var notices: [Row] = [Row(""), Row("Notices (newest first):", .bold)]
            for notice in model.notices.reversed() {
                let style: Style =
                    switch notice.level {
                    case .error: .error
                    case .success: .success
                    // `info`, and a level from a newer host (shown as `info`).
                    default: .info
                    }
                notices += wrap(
                    Row(spans: [("  \(notice.level.rawValue.uppercased()): ", style), (notice.text, .plain)]),
                    width: width)
            }
            rows += notices.prefix(room)
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
            case .unauthorized: .error
            }
        var left = "remote-modal kiosk | \(who) | "
        if left.count + state.count > width { left = "\(who) | " }
        return Row(spans: [(left, .bold), (state, style)])
    }

    private static func tooSmall(width: Int, height: Int, needed: Int) -> [Row] {
        let text = [
            Row("Terminal too small", .error),
            Row("This is \(width)x\(height); the kiosk needs \(minimumWidth)x\(needed)."),
            Row("Enlarge the window."),
        ]
        return Array(text.flatMap { wrap($0, width: width) }.prefix(max(1, height)))
    }

    static func title(_ open: KioskModel.OpenModal) -> String { KioskModel.title(of: open.modal) }

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
            let cursor = focused ? "_" : ""
            let text = field.secret ? String(repeating: "*", count: field.text.count) : field.text
            if field.multiline {
                rows.append(
                    Row(spans: [
                        (marker, .bold), ("\(field.label)", focused ? .bold : .plain),
                        (field.hint.map { " (\($0))" } ?? "", .dim), (":", focused ? .bold : .plain),
                    ]))
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    rows.append(Row("    | " + line + (number == lines.count - 1 ? cursor : "")))
                }
            } else {
                rows.append(
                    Row(spans: [
                        (marker, .bold), ("\(field.label)", focused ? .bold : .plain),
                        (field.hint.map { " (\($0))" } ?? "", .dim), (": ", focused ? .bold : .plain),
                        (text + cursor, .plain),
                    ]))
            }
            // Right under the field it concerns (the top line is for what concerns the kiosk).
            if let error = field.error { rows.append(Row("    ^ " + error, .error)) }
        }
        if let error = open.uploadError { rows.append(Row(error, .error)) }
        if let upload = open.upload {
            rows += uploadRows(upload, open: open, connection: model.connection)
        } else if open.reading {
            rows.append(Row("Reading the files...", .info))
        }
        let refused = open.uploadError != nil && open.upload != nil
        if refused {
            rows.append(Row("  [1] Cancel"))
            rows.append(Row(spans: [("  [2] Try again", .preferred), (enterMarker, .bold)]))
            rows.append(Row("  [3] Choose other files"))
        } else if !busy {
            for (index, choice) in open.choices.enumerated() {
                let isDefault = open.defaultChoice == index && onChoices
                var spans: [(String, Style)] = [("  ", .plain)]
                if !choice.enabled {
                    spans.append(("[\(index + 1)] \(choice.title) (disabled)", .dim))
                } else if choice.preferred || isDefault {
                    // Stands out from the start; the marker only where Enter picks it (in a
                    // field Enter moves on).
                    spans.append(("[\(index + 1)] \(choice.title)", .preferred))
                    if isDefault { spans.append((enterMarker, .bold)) }
                } else {
                    spans.append(("[\(index + 1)] \(choice.title)", choice.style == .destructive ? .error : .plain))
                }
                rows.append(Row(spans: spans))
            }
        }
        if open.answered {
            rows.append(Row("(answer sent, waiting for the host)", .info))
        }
        if model.connection != .connected {
            rows.append(Row("(\(model.connection.rawValue): this dialog stays open)", .warning))
        }
        rows.append(Row(hint(open, refused: refused), .dim))
        return rows
    }

    private static func uploadRows(_ upload: KioskUpload, open: KioskModel.OpenModal, connection: KioskModel.Connection)
        -> [Row]
    {
        let total = max(1, upload.total)
        let fraction = Double(upload.acknowledged) / Double(total)
        let filled = min(20, Int((fraction * 20).rounded(.down)))
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "]"
        let amount = "\(KioskUpload.format(upload.acknowledged)) of \(KioskUpload.format(upload.total))"
        let percent = "\(Int((fraction * 100).rounded(.down)))%"
        let files = upload.files.count == 1 ? upload.files[0].name : "\(upload.files.count) files"
        if open.answered {
            return [Row("Sent \(files): \(KioskUpload.format(upload.total)), every byte confirmed.", .success)]
        }
        var rows = [Row(spans: [("Uploading \(files) \(bar) \(percent)  ", .bold), (amount + " received", .plain)])]
        if connection != .connected {
            rows.append(
                Row("Paused: \(connection.rawValue). The upload goes on from here when the host is back.", .warning))
        } else if upload.paused, open.uploadError == nil {
            rows.append(Row("Waiting for the host to say what it holds...", .warning))
        }
        return rows
    }

    /// The one mark of the choice Enter picks, shown only while Enter picks it.
    static let enterMarker = "  <- Enter"

    /// What the keys do for the modal on screen; only what is true.
    static func hint(_ open: KioskModel.OpenModal, refused: Bool) -> String {
        if refused { return "1 or Esc cancels; 2 or Enter tries again; 3 chooses other files." }
        if open.uploading { return "Esc cancels the upload." }
        if open.answered { return "Esc stops waiting and cancels." }
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

    /// Draws a code with half blocks: each character is a top and a bottom module; a
    /// dark module is drawn with the character's foreground (black on the white the
    /// screen sets), so "▀" is dark above, light below.
    /// - Parameters:
    ///   - code: The code.
    ///   - quietZone: Light modules around it.
    /// - Returns: One string per two module rows.
    public static func halfBlocks(_ code: QRCode, quietZone: Int) -> [String] {
        let side = code.size + 2 * quietZone
        return stride(from: 0, to: side, by: 2).map { row in
            String(
                (0..<side).map { column -> Character in
                    let top = code[row - quietZone, column - quietZone]
                    let bottom = row + 1 < side && code[row + 1 - quietZone, column - quietZone]
                    switch (top, bottom) {
                    case (true, true): return "\u{2588}"
                    case (true, false): return "\u{2580}"
                    case (false, true): return "\u{2584}"
                    case (false, false): return " "
                    }
                })
        }
    }

    /// Breaks a row at spaces (or anywhere, for a word longer than the width), keeping styles.
    static func wrap(_ row: Row, width: Int) -> [Row] {
        guard row.count > width else { return [row] }
        var characters: [(Character, Style)] = row.spans.flatMap { span in span.text.map { ($0, span.style) } }
        var result: [Row] = []
        while characters.count > width {
            var cut = width
            if let space = characters[0...width].lastIndex(where: { $0.0 == " " }), space > width / 3 { cut = space }
            result.append(spans(characters[0..<cut]))
            characters.removeFirst(cut)
            while characters.first?.0 == " " { characters.removeFirst() }
            if !characters.isEmpty, width > 10 { characters.insert(contentsOf: [(" ", .plain), (" ", .plain)], at: 0) }
        }
        if !characters.isEmpty { result.append(spans(characters[...])) }
        return result
    }

    private static func spans(_ characters: ArraySlice<(Character, Style)>) -> Row {
        var spans: [(text: String, style: Style)] = []
        for (character, style) in characters {
            if let last = spans.last, last.style == style {
                spans[spans.count - 1].text.append(character)
            } else {
                spans.append((String(character), style))
            }
        }
        return Row(spans: spans)
    }
}
