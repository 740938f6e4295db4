/// A key the person pressed, decoded from the terminal.
public enum Key: Equatable, Sendable {
    /// A printable character.
    case character(Character)
    /// Enter.
    case enter
    /// Backspace.
    case backspace
    /// Tab.
    case tab
    /// Shift-Tab.
    case backTab
    /// Escape (alone: a lone ESC byte with nothing after it within the decoder's timeout).
    case escape
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Home.
    case home
    /// End.
    case end
    /// Delete (forward).
    case delete
    /// Insert.
    case insert
    /// Page up.
    case pageUp
    /// Page down.
    case pageDown
    /// A function key, F1 to F20.
    case function(Int)
    /// Ctrl-C.
    case interrupt
}

/// Turns terminal bytes into keys: UTF-8 characters, control keys, CSI (`ESC [`) and SS3
/// (`ESC O`) sequences as xterm, VT220, rxvt and tmux send them. Pure.
///
/// A sequence the decoder does not know is dropped whole, never typed. An ESC with nothing
/// after it stays pending until `flush()` (the reader calls it after `escapeTimeout` of
/// quiet): only then is it Escape, so the ESC that starts an arrow key never cancels.
public struct KeyDecoder: Sendable {
    /// How long a reader waits after a lone ESC before calling `flush()`, in milliseconds.
    public static let escapeTimeout: Int32 = 50
    /// The longest escape sequence kept; a longer one is dropped (a hostile paste).
    static let maximumSequence = 32

    private var pending: [UInt8] = []

    /// Creates a decoder.
    public init() {}

    /// Whether bytes wait for more (an ESC, a sequence or a character cut in two).
    public var hasPending: Bool { !pending.isEmpty }

    /// Feeds bytes.
    /// - Parameter bytes: What the terminal sent.
    /// - Returns: The keys they make.
    public mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while !pending.isEmpty {
            guard let (key, length) = next() else { break }
            pending.removeFirst(length)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// Ends what is pending after a quiet spell: a lone ESC is Escape; an incomplete
    /// sequence or character is dropped.
    /// - Returns: The keys.
    public mutating func flush() -> [Key] {
        defer { pending = [] }
        return pending.first == 0x1B ? [.escape] : []
    }

    /// The key at the start of `pending` and the bytes it takes; `nil` when more bytes are needed.
    private func next() -> (Key?, Int)? {
        let byte = pending[0]
        switch byte {
        case 0x03: return (.interrupt, 1)
        case 0x09: return (.tab, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x1B: return escape()
        case 0x00..<0x20: return (nil, 1)
        case 0x80..<0xC0: return (nil, 1)
        default:
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            guard pending.count >= length else { return nil }
            guard let text = String(validating: pending[0..<length], as: UTF8.self), let character = text.first,
                !character.unicodeScalars.contains(where: { $0.value >= 0x80 && $0.value < 0xA0 })
            else { return (nil, 1) }
            return (.character(character), length)
        }
    }

    private func escape() -> (Key?, Int)? {
        guard pending.count >= 2 else { return nil }
        switch pending[1] {
        case 0x5B: return csi()
        case 0x4F:
            guard pending.count >= 3 else { return nil }
            return (Self.ss3(pending[2]), 3)
        case 0x1B:
            // ESC ESC: the first is Escape (a second press, or Alt-Escape).
            return (.escape, 1)
        default:
            // Alt with a key (ESC x): not a key this kiosk uses; dropped, never typed.
            let length = pending[1] >= 0xC0 ? (pending[1] >= 0xF0 ? 4 : pending[1] >= 0xE0 ? 3 : 2) : 1
            return (nil, min(pending.count, 1 + length))
        }
    }

    /// `ESC [` parameters (0x30-0x3F), intermediates (0x20-0x2F), then one final byte (0x40-0x7E).
    private func csi() -> (Key?, Int)? {
        var index = 2
        while index < pending.count, (0x20...0x3F).contains(pending[index]) { index += 1 }
        guard index < pending.count else {
            // Incomplete; past the longest sequence it is junk.
            return pending.count > Self.maximumSequence ? (nil, pending.count) : nil
        }
        let final = pending[index]
        let length = index + 1
        guard (0x40...0x7E).contains(final) else { return (nil, length) }
        let parameters = String(decoding: pending[2..<index], as: UTF8.self)
        let first = Int(parameters.split(separator: ";").first ?? "") ?? 1
        return (Self.csiKey(final: final, first: first), length)
    }

    private static func csiKey(final: UInt8, first: Int) -> Key? {
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x5A: return .backTab
        case 0x50: return .function(1)
        case 0x51: return .function(2)
        case 0x52: return .function(3)
        case 0x53: return .function(4)
        case 0x7E:
            switch first {
            case 1, 7: return .home
            case 2: return .insert
            case 3: return .delete
            case 4, 8: return .end
            case 5: return .pageUp
            case 6: return .pageDown
            case 11...15: return .function(first - 10)
            case 17...21: return .function(first - 11)
            case 23...26: return .function(first - 12)
            case 28, 29: return .function(first - 13)
            case 31...34: return .function(first - 14)
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func ss3(_ byte: UInt8) -> Key? {
        switch byte {
        case 0x41: .up
        case 0x42: .down
        case 0x43: .right
        case 0x44: .left
        case 0x48: .home
        case 0x46: .end
        case 0x50: .function(1)
        case 0x51: .function(2)
        case 0x52: .function(3)
        case 0x53: .function(4)
        case 0x4D: .enter  // keypad Enter in application mode
        default: nil
        }
    }
}
