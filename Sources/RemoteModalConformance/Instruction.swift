import Foundation

/// What the conformance host asks the person (or script) in front of a client to do, one
/// line of a modal's text each: the `message` of an alert or action sheet, the `body` of a
/// composer, the `prompt` of a picker, `payload.instructions` of the custom kind. The
/// scheme is in docs/clients.md ("The conformance host"): every line ends with a full stop
/// and quotes what to type or choose, so a person reads it and a script matches it.
public enum Instruction: Sendable, Equatable, CustomStringConvertible {
    /// `Type "TEXT" in field N.` (N from 1).
    case type(String, field: Int)
    /// `Choose "TITLE".`: the action (or sheet choice) of that title.
    case choose(String)
    /// `Wait.`: answer nothing; the host takes the dialog away.
    case wait
    /// `Send.`: a composer, sent as it is (status `sent`).
    case send
    /// `Upload N file(s) of B bytes each as "MIME".`: any bytes, then the picker's result.
    case upload(count: Int, bytes: Int, mimeType: String)
    /// `Answer JSON.`: the custom kind's value, exactly this JSON.
    case answer(String)

    /// The line as shown.
    public var description: String {
        switch self {
        case .type(let text, let field): "Type \"\(text)\" in field \(field)."
        case .choose(let title): "Choose \"\(title)\"."
        case .wait: "Wait."
        case .send: "Send."
        case .upload(let count, let bytes, let mimeType):
            "Upload \(count) file\(count == 1 ? "" : "s") of \(bytes) bytes\(count == 1 ? "" : " each") as \"\(mimeType)\"."
        case .answer(let json): "Answer \(json)."
        }
    }

    /// The lines of several instructions, joined with new lines.
    /// - Parameter instructions: In order.
    /// - Returns: The text to put in the modal.
    public static func text(_ instructions: [Instruction]) -> String {
        instructions.map(\.description).joined(separator: "\n")
    }

    /// The instructions in a modal's text; lines that are none are skipped.
    /// - Parameter text: A message, body or prompt.
    /// - Returns: The instructions, in order.
    public static func parse(_ text: String) -> [Instruction] {
        text.split(whereSeparator: \.isNewline).compactMap { parse(line: String($0)) }
    }

    /// One line's instruction, or nil.
    /// - Parameter line: A line of text.
    /// - Returns: The instruction it says.
    public static func parse(line: String) -> Instruction? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(".") else { return nil }
        let body = String(trimmed.dropLast())
        if body == "Wait" { return .wait }
        if body == "Send" { return .send }
        if body.hasPrefix("Answer ") { return .answer(String(body.dropFirst("Answer ".count))) }
        if body.hasPrefix("Choose \""), body.hasSuffix("\""), body.count >= 9 {
            return .choose(String(body.dropFirst("Choose \"".count).dropLast()))
        }
        if body.hasPrefix("Type \""), let range = body.range(of: "\" in field ", options: .backwards),
            let field = Int(body[range.upperBound...]), field >= 1
        {
            return .type(String(body[body.index(body.startIndex, offsetBy: 6)..<range.lowerBound]), field: field)
        }
        if body.hasPrefix("Upload ") {
            let words = body.split(separator: " ")
            guard words.count >= 7, let count = Int(words[1]), let bytes = Int(words[4]),
                let quoted = words.last, quoted.hasPrefix("\""), quoted.hasSuffix("\""), quoted.count > 2
            else { return nil }
            return .upload(count: count, bytes: bytes, mimeType: String(quoted.dropFirst().dropLast()))
        }
        return nil
    }
}
