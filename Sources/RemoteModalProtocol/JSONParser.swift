/// Why a text is not acceptable JSON.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, for the `error` message.
    public let reason: String
    /// The byte offset where it went wrong.
    public let offset: Int

    /// `reason at byte N`.
    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict JSON parser (RFC 8259) with limits: nesting depth and string length. It
/// never traps on any input.
public struct JSONParser {
    /// The deepest nesting accepted.
    public var maxDepth = 32
    /// The longest string accepted, in bytes.
    public var maxStringBytes = 1_048_576

    /// Creates a parser with the default limits.
    public init() {}

    /// Parses a whole document.
    /// - Parameter text: The JSON text.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` naming the problem and its offset.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONParseError> = text.withUTF8 { bytes in
            // A String's bytes are valid UTF-8 already, and so is any run between two quotes.
            Result { () throws(JSONParseError) -> JSONValue in try parse(bytes: bytes, validUTF8: true) }
        }
        return try result.get()
    }

    /// Parses a whole document from UTF-8 bytes.
    /// - Parameter bytes: The JSON text's bytes.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` naming the problem and its offset.
    public func parse(bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        try parse(bytes: bytes, validUTF8: false)
    }

    private func parse(bytes: UnsafeBufferPointer<UInt8>, validUTF8: Bool) throws(JSONParseError) -> JSONValue {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth, maxStringBytes: maxStringBytes, validUTF8: validUTF8)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the JSON value") }
        return value
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let maxStringBytes: Int
    /// Whether the input is known to be valid UTF-8 (it came from a String): a string
    /// without escapes is then taken as it is, without validating it again.
    let validUTF8: Bool
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxStringBytes: Int, validUTF8: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.validUTF8 = validUTF8
    }

    func error(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("invalid literal") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw error("invalid literal")
        }
        index += count
        return value
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth)") }
        index += 1
        var pairs: [(String, JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(pairs)
        }
        // Most protocol objects have a handful of keys: one allocation instead of growing.
        pairs.reserveCapacity(8)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            pairs.append((key, try value(depth: depth)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(pairs)
            default: throw error("expected ',' or '}'")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth)") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        elements.reserveCapacity(4)
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("invalid number")
        }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else {
                throw error("invalid number")
            }
            while let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else {
                throw error("invalid number")
            }
            while let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) { index += 1 }
        }
        guard index - start <= 64 else { throw error("number too long") }
        if index - start <= 15, let integer = Self.smallInteger(UnsafeBufferPointer(rebasing: bytes[start..<index])) {
            // Exact as a Double (under 2^53): no text conversion for the common seq and index.
            return .number(Double(integer))
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .number(value)
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Whether any of the eight bytes of `word` is `"`, `\\` or below 0x20 (exact: the
    /// zero-byte test of each comparison has no false positive when no byte matches).
    @inline(__always)
    static func hasQuoteBackslashOrControl(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let quote = hasZeroByte(word ^ (ones &* 0x22))
        let backslash = hasZeroByte(word ^ (ones &* 0x5C))
        let control = (word &- ones &* 0x20) & ~word & highs
        return (quote | backslash | control) != 0
    }

    /// The value of an optional minus and digits only (at most 15 of them), else `nil`.
    static func smallInteger(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var digits = text[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }

    mutating func string() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes. Eight bytes at a time while none of them is a quote, a
        // backslash or a control character (an upload chunk's data is 43,692 of them).
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count,
                !Self.hasQuoteBackslashOrControl(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            {
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                guard slice.count <= maxStringBytes else { throw error("string longer than \(maxStringBytes) bytes") }
                index += 1
                // NB: `String(validating:)` goes through a generic, unspecialized path (a few
                // percent of the host's time at one session); valid input needs no check.
                if validUTF8 { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else {
                    index -= 1
                    throw error("invalid UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard let byte = current else { throw error("unterminated string") }
            guard scalars.count <= maxStringBytes else { throw error("string longer than \(maxStringBytes) bytes") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else { throw error("invalid UTF-8") }
                return text
            case 0..<0x20:
                throw error("control character in string")
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = current else { throw error("unterminated string") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("lone surrogate in \\u escape") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("lone surrogate in \\u escape")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("invalid escape")
                }
            default:
                scalars.append(byte)
                index += 1
            }
        }
    }
}
