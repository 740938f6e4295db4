/// Standard base64 (RFC 4648, section 4: `A-Z a-z 0-9 + /`, padded with `=`), decoded
/// strictly and without per-byte branching: upload chunks carry 43,692 characters each.
///
/// Strict means: the length is a multiple of 4, every character is of the alphabet, and
/// `=` appears only as the last one or two characters. No whitespace, no URL alphabet.
/// Like Foundation's `Data(base64Encoded:)`, the unused low bits of a padded group are
/// not checked (`YR==` decodes as `YQ==`); unlike it, `====` and `YQ=a` are refused.
///
/// Each group of four characters is decoded with four table look-ups whose results are
/// ORed into the group's 24 bits; a character outside the alphabet sets bit 24, which is
/// tested once for the whole input rather than once a character.
public enum Base64 {
    /// Marks a character outside the alphabet in every table.
    private static let invalid: UInt32 = 0x0100_0000

    /// Four 256-entry tables, one per position in a group: the character's 6 bits already
    /// shifted into place (18, 12, 6, 0), or `invalid`.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: invalid, count: 4 * 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (value, character) in alphabet.enumerated() {
            for position in 0..<4 {
                tables[position * 256 + Int(character)] = UInt32(value) << UInt32(18 - 6 * position)
            }
        }
        return tables
    }()

    /// The most bytes `count` characters of base64 decode to.
    /// - Parameter count: The number of characters.
    /// - Returns: `count / 4 * 3`.
    public static func maxDecodedCount(encodedCount count: Int) -> Int { count / 4 * 3 }

    /// Decodes base64 text.
    /// - Parameter text: The text.
    /// - Returns: The bytes, or `nil` when the text is not strict standard base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// Decodes base64 from its UTF-8 bytes.
    /// - Parameter utf8: The text's bytes.
    /// - Returns: The bytes, or `nil` when they are not strict standard base64.
    public static func decode(utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let capacity = maxDecodedCount(encodedCount: utf8.count)
        guard capacity > 0 else {
            // `Array(unsafeUninitializedCapacity: 0)` writes its count into the one shared empty
            // array's storage: two threads decoding short texts at once race there (ThreadSanitizer
            // reported it). Such a text decodes to nothing or is not base64.
            return decode(utf8: utf8, into: UnsafeMutableRawBufferPointer(start: nil, count: 0)).map { _ in [] }
        }
        var count = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) {
            out, initialized in
            count = decode(utf8: utf8, into: UnsafeMutableRawBufferPointer(out)) ?? -1
            initialized = max(0, count)
        }
        return count < 0 ? nil : bytes
    }

    /// Decodes base64 from its UTF-8 bytes into a buffer, without allocating.
    /// - Parameters:
    ///   - utf8: The text's bytes.
    ///   - output: Where the bytes go: at least `maxDecodedCount(encodedCount: utf8.count)`
    ///     bytes (what lies past the returned count, and all of it on failure, is unspecified).
    /// - Returns: The number of bytes decoded, or `nil` when the input is not strict
    ///   standard base64 or `output` is too small.
    public static func decode(utf8: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawBufferPointer) -> Int? {
        let count = utf8.count
        guard count % 4 == 0 else { return nil }
        guard count > 0 else { return 0 }
        guard output.count >= maxDecodedCount(encodedCount: count), let input = utf8.baseAddress,
            let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return nil }
        return tables.withUnsafeBufferPointer { tables -> Int? in
            let t = tables.baseAddress!
            var seen: UInt32 = 0
            var index = 0
            var written = 0
            // Every group but the last: no padding allowed.
            let body = count - 4
            while index < body {
                let word =
                    t[Int(input[index])] | t[256 + Int(input[index + 1])] | t[512 + Int(input[index + 2])]
                    | t[768 + Int(input[index + 3])]
                seen |= word
                out[written] = UInt8(truncatingIfNeeded: word >> 16)
                out[written + 1] = UInt8(truncatingIfNeeded: word >> 8)
                out[written + 2] = UInt8(truncatingIfNeeded: word)
                index += 4
                written += 3
            }
            // The last group: `xx==`, `xxx=` or `xxxx`.
            let equals = UInt8(ascii: "=")
            let c2 = input[index + 2]
            let c3 = input[index + 3]
            var word = t[Int(input[index])] | t[256 + Int(input[index + 1])]
            let tail: Int
            if c3 == equals {
                if c2 == equals {
                    tail = 1
                } else {
                    word |= t[512 + Int(c2)]
                    tail = 2
                }
            } else {
                word |= t[512 + Int(c2)] | t[768 + Int(c3)]
                tail = 3
            }
            seen |= word
            guard seen & invalid == 0 else { return nil }
            out[written] = UInt8(truncatingIfNeeded: word >> 16)
            if tail > 1 { out[written + 1] = UInt8(truncatingIfNeeded: word >> 8) }
            if tail > 2 { out[written + 2] = UInt8(truncatingIfNeeded: word) }
            return written + tail
        }
    }
}
