/// Random identifiers and constant-time comparison for the host's secrets.
enum Secrets {
    /// 128 bits from the system's cryptographic random source (getrandom on Linux), as
    /// unpadded base64url.
    static func sessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(16)
        for _ in 0..<2 { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        return base64URL(bytes)
    }

    /// A short unguessable code: 48 random bits as 8 base64url characters (a short sign-in
    /// link's, which lives only while its modal is open).
    static func shortCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return base64URL((0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    /// Unpadded base64url of bytes.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var output = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for byte in chunk { value = value << 8 | Int(byte) }
            value <<= 8 * (3 - chunk.count)
            for position in 0..<(chunk.count + 1) {
                output.append(alphabet[(value >> (18 - 6 * position)) & 63])
            }
            index += 3
        }
        return output
    }

    /// Compares two strings in time that depends only on their lengths.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = left.count ^ right.count
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= Int(a ^ b)
        }
        return difference == 0
    }
}
