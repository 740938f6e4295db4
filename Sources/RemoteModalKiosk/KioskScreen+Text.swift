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
