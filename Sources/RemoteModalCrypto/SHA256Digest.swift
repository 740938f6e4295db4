/// A SHA-256 digest: 32 bytes.
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes of a digest.
    public static let byteCount = 32

    /// The digest's bytes.
    public let bytes: [UInt8]

    init(checkedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The digest as lower-case hex (64 digits).
    public var hex: String { Hex.lowercase(bytes) }

    /// The hex, as `hex`.
    public var description: String { hex }
}

/// Lower-case hex of bytes.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The bytes as lower-case hex, two digits a byte.
    static func lowercase(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[index * 2] = digits[Int(byte >> 4)]
                out[index * 2 + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }
}
