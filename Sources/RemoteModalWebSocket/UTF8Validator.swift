/// Checks UTF-8 as it arrives, piece by piece, so that text is refused at the first byte that
/// cannot be part of valid UTF-8 (RFC 6455 §8.1: fail fast), even when the message is split
/// across frames or lws delivers one frame in several pieces.
///
/// The host checks text itself rather than with libwebsockets' `VALIDATE_UTF8` option: lws
/// checks a byte at a time, and that loop was 10% of the host's CPU while it received uploads
/// (issue 31; a chunk message is 44 KB of base64). Here ASCII, nearly every byte of the
/// protocol, passes eight bytes at a time, and only a multi-byte sequence is walked byte by
/// byte. The byte ranges are RFC 3629's table (no overlong forms, no surrogates, nothing past
/// U+10FFFF).
struct UTF8Validator: Equatable {
    /// Continuation bytes the current sequence still needs.
    private var needed: UInt8 = 0
    /// The range the next continuation byte must fall in (narrower only after E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether the bytes so far end between characters (a message may end here).
    var isAtBoundary: Bool { needed == 0 }

    /// Checks the next bytes.
    /// - Parameter bytes: The next piece of the text.
    /// - Returns: `false` at the first byte that no valid UTF-8 can have there; the
    ///   validator's state is unspecified after that.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        let count = bytes.count
        while offset < count {
            if needed == 0 {
                // NB: the fast path. Unaligned eight-byte loads are cheap on every platform
                // Swift runs on here; the high bit of any byte ends the run.
                while offset + 8 <= count,
                    bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    offset += 8
                }
                guard offset < count else { break }
                let byte = bytes[offset]
                offset += 1
                if byte < 0x80 { continue }
                guard start(byte) else { return false }
            } else {
                let byte = bytes[offset]
                offset += 1
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    /// Starts the sequence a lead byte opens, or refuses a byte that cannot lead one.
    private mutating func start(_ byte: UInt8) -> Bool {
        lower = 0x80
        upper = 0xBF
        switch byte {
        case 0xC2...0xDF: needed = 1
        case 0xE0: (needed, lower) = (2, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: needed = 2
        case 0xED: (needed, upper) = (2, 0x9F)
        case 0xF0: (needed, lower) = (3, 0x90)
        case 0xF1...0xF3: needed = 3
        case 0xF4: (needed, upper) = (3, 0x8F)
        default: return false
        }
        return true
    }
}
