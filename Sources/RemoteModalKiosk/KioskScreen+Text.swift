import Foundation

extension KioskScreen {
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

    /// Breaks a row at spaces (or anywhere, for a word longer than the width), keeping styles.
    /// The wrapped lines keep the first line's indent, and line up after its marker (`^ `,
    /// `| `, `[2] `); a line that starts at the margin goes on two columns in.
    static func wrap(_ row: Row, width: Int) -> [Row] {
        guard row.count > width else { return [row] }
        var characters: [(Character, Style)] = row.spans.flatMap { span in span.text.map { ($0, span.style) } }
        let indent = continuationIndent(String(characters.map(\.0)), width: width)
        var result: [Row] = []
        while characters.count > width {
            var cut = width
            // A space past the indent (breaking inside the indent would only repeat it).
            let floor = max(width / 3, result.isEmpty ? 0 : indent)
            if let space = characters[0...width].lastIndex(where: { $0.0 == " " }), space > floor { cut = space }
            result.append(spans(characters[0..<cut]))
            characters.removeFirst(cut)
            while characters.first?.0 == " " { characters.removeFirst() }
            if !characters.isEmpty, indent > 0 {
                characters.insert(contentsOf: Array(repeating: (Character(" "), Style.plain), count: indent), at: 0)
            }
        }
        if !characters.isEmpty { result.append(spans(characters[...])) }
        return result
    }

    /// Where the wrapped lines of `text` start: under its text after the leading spaces and a
    /// marker; two columns in for text at the margin; none when that leaves under ten columns.
    static func continuationIndent(_ text: String, width: Int) -> Int {
        let characters = Array(text)
        let lead = characters.prefix { $0 == " " }.count
        let rest = characters[lead...]
        var marker = 0
        if rest.starts(with: ["^", " "]) || rest.starts(with: ["|", " "]) {
            marker = 2
        } else if rest.first == "[", let close = rest.firstIndex(of: "]"), close - lead <= 4,
            rest[(lead + 1)..<close].allSatisfy(\.isNumber), close + 1 < characters.count, characters[close + 1] == " "
        {
            marker = close - lead + 2
        }
        let indent = lead == 0 && marker == 0 ? 2 : lead + marker
        return width - indent >= 10 ? indent : 0
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

    /// A notice wrapped into at most `rows` rows: its text cut with an ellipsis when it needs
    /// more, its level and its time always drawn.
    static func fitted(_ notice: Notice, indent: String, width: Int, rows: Int) -> [Row] {
        let whole = wrap(noticeRow(notice, indent: indent), width: width)
        guard whole.count > rows, rows >= 1 else { return whole }
        // The longest prefix of the text that fits, found by halving (a hostile host's long
        // notices are drawn every frame).
        let characters = Array(notice.text)
        var (low, high) = (0, characters.count)
        while low < high {
            let middle = (low + high + 1) / 2
            var cut = notice
            cut.text = String(characters[..<middle]) + "\u{2026}"
            if wrap(noticeRow(cut, indent: indent), width: width).count <= rows {
                low = middle
            } else {
                high = middle - 1
            }
        }
        var cut = notice
        cut.text = String(characters[..<low]) + "\u{2026}"
        return Array(wrap(noticeRow(cut, indent: indent), width: width).prefix(rows))
    }

    /// A notice as one row: its level, its text, and when it came (identical notices are
    /// one, with a count and the time the last came).
    static func noticeRow(_ notice: Notice, indent: String) -> Row {
        let style: Style =
            switch notice.level {
            case .error: .error
            case .success: .success
            // `info`, and a level from a newer host (shown as `info`).
            default: .info
            }
        let when =
            notice.count > 1
            ? "  (\(notice.count) times, last at \(notice.time))" : notice.time.isEmpty ? "" : "  (\(notice.time))"
        return Row(spans: [
            ("\(indent)\(notice.level.rawValue.uppercased()): ", style), (notice.text, .plain), (when, .dim),
        ])
    }
}
