/// The most characters of one client-supplied string a log line shows (`logSafe`).
public let logSafeLimit = 64

/// Makes a client-supplied string safe for a log line: quoted, control characters and
/// backslashes escaped (`\n`, `\t`, `\u001b`, ...), and cut to `limit` characters with a
/// note of how many were left out. A name with a newline cannot forge a log line, and an
/// escape sequence cannot repaint the operator's terminal.
/// - Parameters:
///   - text: What the client sent.
///   - limit: The most characters shown (default ``logSafeLimit``, 64).
/// - Returns: The escaped, quoted, possibly shortened text.
public func logSafe(_ text: String, limit: Int = logSafeLimit) -> String {
    var output = "\""
    var shown = 0
    for scalar in text.unicodeScalars {
        if shown == limit {
            output += "…(\(text.unicodeScalars.count - shown) more)"
            break
        }
        shown += 1
        output += escapedForLog(scalar)
    }
    return output + "\""
}

/// Escapes control characters (C0, DEL, C1, line and paragraph separators, bidi
/// controls), quotes and backslashes in a whole log line.
/// - Parameter line: The line.
/// - Returns: The line, one physical line, with nothing a terminal interprets.
public func escapeLogLine(_ line: String) -> String {
    guard line.unicodeScalars.contains(where: needsEscape) else { return line }
    var output = ""
    for scalar in line.unicodeScalars {
        output += needsEscape(scalar) ? escapedForLog(scalar) : String(scalar)
    }
    return output
}

private func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
        || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
}

private func escapedForLog(_ scalar: Unicode.Scalar) -> String {
    switch scalar {
    case "\n": return "\\n"
    case "\r": return "\\r"
    case "\t": return "\\t"
    case "\"": return "\\\""
    case "\\": return "\\\\"
    default:
        guard needsEscape(scalar) else { return String(scalar) }
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
