import Foundation

/// An HTML mail body as readable terminal text: tags dropped (never shown as markup),
/// paragraphs and line breaks kept, list items marked, links written out after their
/// text, entities decoded, scripts, styles and comments left out, and control characters
/// removed so the host's text cannot drive the terminal.
public enum KioskHTML {
    /// Tags that end a line of text.
    private static let lineTags: Set<String> = [
        "br", "p", "div", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
        "hr", "section", "article", "header", "footer", "dd", "dt", "dl",
    ]
    /// Tags whose whole content is dropped.
    private static let hiddenTags: Set<String> = ["script", "style", "head", "title", "template"]

    /// Converts an HTML body to text.
    /// - Parameter html: The HTML.
    /// - Returns: Readable text, lines separated by `\n`, at most one blank line in a row.
    public static func readableText(_ html: String) -> String {
        var output = TextBuilder()
        var index = html.startIndex
        var hiddenUntil: String?
        var links: [String?] = []
        while index < html.endIndex {
            if html[index] == "<" {
                if html[index...].hasPrefix("<!--") {
                    let end = html[index...].range(of: "-->")?.upperBound ?? html.endIndex
                    index = end
                    continue
                }
                guard let close = html[index...].firstIndex(of: ">") else {
                    // A lone `<`: text, not a tag.
                    if hiddenUntil == nil { output.text("<") }
                    index = html.index(after: index)
                    continue
                }
                let tag = Tag(String(html[html.index(after: index)..<close]))
                index = html.index(after: close)
                if let hidden = hiddenUntil {
                    if tag.closing, tag.name == hidden { hiddenUntil = nil }
                    continue
                }
                if !tag.closing, hiddenTags.contains(tag.name) {
                    hiddenUntil = tag.name
                    continue
                }
                switch tag.name {
                case "a" where !tag.closing:
                    links.append(tag.attribute("href").map(decodeEntities))
                    output.markLinkStart()
                case "a":
                    if let href = links.popLast() ?? nil { output.closeLink(href) }
                case "li" where !tag.closing:
                    output.endLine()
                    output.raw("- ")
                case "br":
                    output.lineBreak()
                case "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "ul", "ol":
                    output.paragraph()
                case "hr":
                    output.paragraph()
                    output.raw("----")
                    output.paragraph()
                case "td", "th":
                    if tag.closing { output.text(" ") }
                default:
                    if lineTags.contains(tag.name) { output.endLine() }
                }
                continue
            }
            let next = html[index...].firstIndex(of: "<") ?? html.endIndex
            if hiddenUntil == nil { output.text(decodeEntities(String(html[index..<next]))) }
            index = next
        }
        return output.finished()
    }

    /// Plain text as HTML: the characters HTML reserves escaped, each line break a `<br>`,
    /// so a body the person edited as text still is the HTML the host asked for.
    /// - Parameter text: The text.
    /// - Returns: The HTML.
    public static func html(fromText text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n", "\r\n": result += "<br>\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// Decodes character references: named ones people use in mail, and numeric ones.
    /// - Parameter text: Text with references.
    /// - Returns: The text with each reference replaced (unknown ones are kept as written).
    public static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            guard character == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";") else {
                result.append(character)
                index = text.index(after: index)
                continue
            }
            let name = String(text[text.index(after: index)..<semicolon])
            if let decoded = decode(reference: name) {
                result.append(decoded)
                index = text.index(after: semicolon)
            } else {
                result.append(character)
                index = text.index(after: index)
            }
        }
        return result
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "copy": "©", "reg": "®",
        "trade": "™", "hellip": "…", "mdash": "—", "ndash": "–", "laquo": "«", "raquo": "»", "lsquo": "‘",
        "rsquo": "’", "ldquo": "“", "rdquo": "”", "euro": "€", "pound": "£", "yen": "¥", "cent": "¢", "deg": "°",
        "middot": "·", "bull": "•", "times": "×", "divide": "÷", "eacute": "é", "egrave": "è", "agrave": "à",
        "ccedil": "ç", "uuml": "ü", "ouml": "ö", "auml": "ä", "szlig": "ß",
    ]

    private static func decode(reference name: String) -> Character? {
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value: UInt32? =
                digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            guard let value, let scalar = Unicode.Scalar(value), value != 0 else { return nil }
            return Character(scalar)
        }
        return named[name].flatMap(\.first)
    }

    /// One tag: its name, whether it closes, and its attributes' text.
    private struct Tag {
        let name: String
        let closing: Bool
        let body: Substring

        init(_ text: String) {
            var body = Substring(text).drop { $0 == " " }
            closing = body.first == "/"
            if closing { body = body.dropFirst() }
            let name = body.prefix { $0.isLetter || $0.isNumber }
            self.name = name.lowercased()
            self.body = body.dropFirst(name.count)
        }

        /// The value of an attribute, quoted or not.
        func attribute(_ wanted: String) -> String? {
            var rest = body[...]
            while let equals = rest.firstIndex(of: "=") {
                let key = rest[..<equals].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).last
                var value = rest[rest.index(after: equals)...].drop { $0 == " " }
                let text: Substring
                if let quote = value.first, quote == "\"" || quote == "'" {
                    value = value.dropFirst()
                    text = value.prefix { $0 != quote }
                    rest = value.dropFirst(text.count + 1)
                } else {
                    text = value.prefix { $0 != " " && $0 != ">" && $0 != "/" }
                    rest = value.dropFirst(text.count)
                }
                if key?.lowercased() == wanted { return String(text) }
            }
            return nil
        }
    }

    /// Collects text with HTML's whitespace rules: runs of spaces collapse, line breaks
    /// come only from tags.
    private struct TextBuilder {
        private var output = ""
        private var linkStart: [Int] = []

        private var atLineStart: Bool { output.isEmpty || output.last == "\n" }

        mutating func text(_ text: String) {
            for character in text {
                if character.isWhitespace {
                    if !atLineStart, output.last != " " { output.append(" ") }
                } else if character.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
                    && !character.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) })
                {
                    output.append(character)
                }
            }
        }

        mutating func raw(_ text: String) { output += text }

        mutating func lineBreak() {
            trimTrailingSpace()
            output.append("\n")
        }

        /// Ends the current line, if anything is on it (block tags; `<br>` always breaks).
        mutating func endLine() {
            trimTrailingSpace()
            if !atLineStart { output.append("\n") }
        }

        /// A blank line, unless there is one already (or nothing yet).
        mutating func paragraph() {
            trimTrailingSpace()
            guard !output.isEmpty, !output.hasSuffix("\n\n") else { return }
            output.append(output.hasSuffix("\n") ? "\n" : "\n\n")
        }

        mutating func markLinkStart() { linkStart.append(output.utf8.count) }

        /// Writes the address after the link's text, unless the text is the address.
        mutating func closeLink(_ href: String) {
            let start = linkStart.popLast() ?? output.utf8.count
            let label = String(decoding: output.utf8.dropFirst(start), as: UTF8.self).trimmingCharacters(
                in: .whitespaces)
            let shown = href.hasPrefix("mailto:") ? String(href.dropFirst(7)) : href
            guard label != shown, label != href, !shown.isEmpty else { return }
            text(label.isEmpty ? shown : " (\(shown))")
        }

        private mutating func trimTrailingSpace() {
            while output.last == " " { output.removeLast() }
        }

        mutating func finished() -> String {
            trimTrailingSpace()
            var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            while lines.first?.isEmpty == true { lines.removeFirst() }
            while lines.last?.isEmpty == true { lines.removeLast() }
            return lines.joined(separator: "\n")
        }
    }
}
