import CRemoteModalCrypto

/// HMAC-SHA256 (RFC 2104, FIPS 198-1), computed by libcrypto, and the constant-time
/// comparison a verifier needs.
///
/// ```swift
/// let tag = HMACSHA256.authenticationCode(for: message, key: key)
/// let genuine = HMACSHA256.isValid(receivedTag, for: message, key: key)
/// ```
public enum HMACSHA256 {
    /// The number of bytes of a code.
    public static let byteCount = 32

    /// The authentication code of a message under a key.
    /// - Parameters:
    ///   - message: The message.
    ///   - key: The key (any length; keys longer than 64 bytes are hashed first, as RFC 2104 says).
    /// - Returns: The 32-byte code.
    public static func authenticationCode<Message: Sequence, Key: Sequence>(for message: Message, key: Key) -> [UInt8]
    where Message.Element == UInt8, Key.Element == UInt8 {
        let message = Array(message)
        let key = Array(key)
        var code = [UInt8](repeating: 0, count: byteCount)
        key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                code.withUnsafeMutableBufferPointer { out in
                    DigestContext.check(
                        crmcrypto_hmac_sha256(
                            key.baseAddress, key.count, message.baseAddress, message.count, out.baseAddress),
                        "HMAC")
                }
            }
        }
        return code
    }

    /// Whether a code authenticates a message under a key, compared in constant time.
    /// - Parameters:
    ///   - code: The code that came with the message.
    ///   - message: The message.
    ///   - key: The key.
    /// - Returns: `true` when the code is the message's.
    public static func isValid<Code: Sequence, Message: Sequence, Key: Sequence>(
        _ code: Code, for message: Message, key: Key
    ) -> Bool where Code.Element == UInt8, Message.Element == UInt8, Key.Element == UInt8 {
        constantTimeEqual(Array(code), authenticationCode(for: message, key: key))
    }

    /// Whether two byte strings are equal, in time that depends on their length only (not
    /// on where they differ), so a verifier tells an attacker nothing of the right code.
    /// - Parameters:
    ///   - a: One byte string.
    ///   - b: The other.
    /// - Returns: `true` when both have the same length and bytes.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        // The length is no secret (a code's length is public).
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in crmcrypto_equal(a.baseAddress, b.baseAddress, a.count) == 1 }
        }
    }
}
