import ModalProtocol

/// Draws the model as lines of text for a terminal of a given size. Pure.
public enum KioskScreen {
    /// The lines to show.
    /// - Parameters:
    ///   - model: The state.
    ///   - width: Terminal columns.
    ///   - height: Terminal rows.
    /// - Returns: At most `height` lines, none longer than `width`.
    public static func lines(_ model: KioskModel, width: Int, height: Int) -> [String] {
        var lines: [String] = []
        let who = model.name + (model.group.map { " (\($0))" } ?? "")
        lines.append("remote-modal kiosk | \(who) | \(model.connection.rawValue)")
        lines.append(String(repeating: "-", count: max(10, min(width, 80))))
        if let open = model.current {
            lines += modalLines(open, width: width)
            if model.connection != .connected { lines.append("(\(model.connection.rawValue): this dialog stays open)") }
        } else {
            lines.append("Controls (press a number):")
            if model.controls.isEmpty { lines.append("  (none yet)") }
            for (index, control) in model.controls.enumerated() {
                var line = "  [\(index + 1)] \(control.title)"
                if control.busy { line += "  (busy...)" } else if !control.enabled { line += "  (disabled)" }
                lines.append(line)
            }
        }
        lines.append("")
        lines.append("Notices:")
        for notice in model.notices { lines.append("  \(notice.level.rawValue.uppercased()): \(notice.text)") }
        return Array(lines.flatMap { wrap($0, width: max(20, width)) }.prefix(max(1, height)))
    }

    static func modalLines(_ open: KioskModel.OpenModal, width: Int) -> [String] {
        var lines: [String] = []
        let title: String
        switch open.modal {
        case .alert(let text, _, _, _), .actionSheet(let text, _, _, _): title = text ?? ""
        case .mailComposer: title = "New mail"
        case .messageComposer: title = "New message"
        case .webAuthentication: title = "Sign in with your provider"
        case .photoPicker: title = "Choose photos"
        case .mediaPicker: title = "Choose media"
        case .custom(let name, _): title = "Custom: \(name)"
        }
        lines.append("== \(title) ==")
        if let note = open.note {
            lines += note.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        for (index, field) in open.fields.enumerated() {
            let marker = open.focus == index ? ">" : " "
            let text = field.secret ? String(repeating: "*", count: field.text.count) : field.text
            lines.append("\(marker) \(field.label): \(text)\(open.focus == index ? "_" : "")")
        }
        let onChoices = open.focus >= open.fields.count
        for (index, choice) in open.choices.enumerated() {
            let state = choice.enabled ? "" : " (disabled)"
            lines.append("\(onChoices ? " " : " ") [\(index + 1)] \(choice.title)\(state)")
        }
        if let progress = open.progress {
            let filled = Int((progress * 20).rounded())
            lines.append(
                "Uploading [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 20 - filled))] \(Int(progress * 100))%"
            )
        }
        if open.answered {
            lines.append("(answer sent, waiting for the host)")
        } else if onChoices || open.fields.isEmpty {
            lines.append("Pick with a number; Esc cancels.")
        } else {
            lines.append("Type, Enter for the next line; Esc cancels.")
        }
        return lines
    }

    private static func wrap(_ line: String, width: Int) -> [String] {
        guard line.count > width else { return [line] }
        var result: [String] = []
        var rest = Substring(line)
        while rest.count > width {
            result.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        }
        result.append(String(rest))
        return result
    }
}
