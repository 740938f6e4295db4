import Foundation
import RemoteModalCrypto

/// The secret every host of a cluster shares: each backplane message is signed with it
/// (HMAC-SHA256) and checked on receipt, so that whoever can write to Redis without it cannot
/// speak for a host. Its bytes never appear in a description or a log.
public struct ClusterKey: Sendable, Equatable, CustomStringConvertible {
    /// The fewest bytes a key may have (256 bits).
    public static let minimumBytes = 32

    let bytes: [UInt8]

    /// Why a key cannot be used.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong (never the key's bytes).
        public let description: String
    }

    /// A key from its bytes.
    /// - Parameter bytes: At least `minimumBytes` bytes.
    /// - Throws: `Problem` for a shorter key.
    public init(bytes: [UInt8]) throws(Problem) {
        guard bytes.count >= Self.minimumBytes else {
            throw Problem(description: "a cluster key needs at least \(Self.minimumBytes) bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// A key read from a file: its bytes with trailing white space removed (so `openssl rand
    /// -hex 32 > cluster.key` works).
    /// - Parameter path: The file.
    /// - Throws: `Problem` when the file cannot be read or the key is too short.
    public init(contentsOfFile path: String) throws(Problem) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "cannot read the cluster key file '\(path)'")
        }
        var bytes = [UInt8](data)
        while let last = bytes.last, [0x20, 0x09, 0x0A, 0x0D].contains(last) { bytes.removeLast() }
        try self.init(bytes: bytes)
    }

    /// Never the key.
    public var description: String { "ClusterKey(\(bytes.count) bytes)" }

    /// The prefix of every signed message.
    static let version = "rm1"

    /// A message as a host publishes it: `rm1.HEX(MAC).BODY`, the HMAC-SHA256 under this key
    /// of `rm1`, the channel and the body (so a message moved to another channel fails).
    /// - Parameters:
    ///   - body: The message's JSON text.
    ///   - channel: The channel it is published on.
    /// - Returns: The payload.
    public func sign(_ body: String, channel: String) -> String {
        Self.version + "." + Self.hex(mac(body, channel: channel)) + "." + body
    }

    /// The body of a message signed with this key for this channel, or why it is refused.
    func open(_ payload: String, channel: String) -> Result<Substring, ClusterRejection> {
        let utf8 = payload.utf8
        let prefix = Self.version.utf8.count + 1
        let macLength = HMACSHA256.byteCount * 2
        guard payload.hasPrefix(Self.version + "."), utf8.count > prefix + macLength,
            utf8[utf8.index(utf8.startIndex, offsetBy: prefix + macLength)] == UInt8(ascii: ".")
        else { return .failure(.unsigned) }
        let macStart = utf8.index(utf8.startIndex, offsetBy: prefix)
        let macEnd = utf8.index(macStart, offsetBy: macLength)
        guard let given = Self.bytes(hex: utf8[macStart..<macEnd]) else { return .failure(.badSignature) }
        let body = Substring(payload.utf8[utf8.index(after: macEnd)...])
        guard HMACSHA256.constantTimeEqual(given, mac(String(body), channel: channel)) else {
            return .failure(.badSignature)
        }
        return .success(body)
    }

    /// The name of a presentation's first-answer claim: `HEX(HMAC(key, "rm1 claim\nID"))`, cut
    /// to 128 bits. Who can write to Redis but lacks the key cannot tell it before the claim
    /// exists, so cannot take it first (squat) and block or hijack the answer.
    /// - Parameter presentationID: The presentation's cluster id.
    /// - Returns: The name's unguessable part.
    func claimName(_ presentationID: String) -> String {
        let code = HMACSHA256.authenticationCode(
            for: Array((Self.version + " claim\n" + presentationID).utf8), key: bytes)
        return Self.hex(Array(code.prefix(16)))
    }

    private func mac(_ body: String, channel: String) -> [UInt8] {
        HMACSHA256.authenticationCode(
            for: Array((Self.version + "\n" + channel + "\n").utf8) + Array(body.utf8), key: bytes)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func bytes(hex: Substring.UTF8View) -> [UInt8]? {
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var high: UInt8?
        for c in hex {
            guard let value = nibble(c) else { return nil }
            if let h = high {
                out.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }
}

/// Why a backplane message was dropped.
enum ClusterRejection: String, Error, Sendable, CaseIterable {
    /// No signature where one is required.
    case unsigned
    /// A signature that is not the message's under the cluster key.
    case badSignature = "bad_signature"
    /// Signed, but too old or from the future (a replay).
    case stale
    /// Larger than any host sends, or not a message.
    case malformed
    /// A well-formed message the receiver refuses (a kind that cannot cross hosts, an answer
    /// without its claim).
    case refused
}
