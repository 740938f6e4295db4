import CRemoteModalCrypto

/// SHA-256 (FIPS 180-4), incremental, computed by OpenSSL's libcrypto (EVP).
///
/// A value type: a copy hashes on independently of the original (the libcrypto context
/// is copied when a shared one is about to change).
///
/// ```swift
/// var hash = SHA256()
/// hash.update(firstChunk)
/// hash.update(secondChunk)
/// let hex = hash.finalize().hex
/// ```
public struct SHA256: Sendable {
    private var context: DigestContext

    /// Starts a hash of nothing yet.
    public init() {
        context = DigestContext(crmcrypto_sha256_new(), "EVP_DigestInit_ex")
    }

    /// Adds bytes.
    /// - Parameter bytes: The bytes (contiguous collections are read in place).
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// Adds the bytes of a buffer, read in place.
    /// - Parameter buffer: The bytes.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        if !isKnownUniquelyReferenced(&context) {
            context = DigestContext(crmcrypto_sha256_copy(context.pointer), "EVP_MD_CTX_copy_ex")
        }
        DigestContext.check(crmcrypto_sha256_update(context.pointer, base, buffer.count), "EVP_DigestUpdate")
    }

    /// The digest of what was added so far; the hash may go on afterwards.
    /// - Returns: The 32-byte digest.
    public func finalize() -> SHA256Digest {
        let copy = DigestContext(crmcrypto_sha256_copy(context.pointer), "EVP_MD_CTX_copy_ex")
        var bytes = [UInt8](repeating: 0, count: SHA256Digest.byteCount)
        bytes.withUnsafeMutableBufferPointer { out in
            DigestContext.check(crmcrypto_sha256_final(copy.pointer, out.baseAddress), "EVP_DigestFinal_ex")
        }
        return SHA256Digest(checkedBytes: bytes)
    }

    /// The digest of bytes.
    /// - Parameter bytes: The bytes.
    /// - Returns: The digest.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> SHA256Digest where Bytes.Element == UInt8 {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalize()
    }

    /// The digest of bytes, as lower-case hex (64 digits).
    /// - Parameter bytes: The bytes.
    /// - Returns: The digest's hex.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        hash(bytes).hex
    }
}

/// Owns one libcrypto digest context, freed with the last reference. Only `SHA256`
/// holds it, and mutates it only while it holds the sole reference (copy on write), so
/// sharing it across threads reads it only.
final class DigestContext: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of a context from libcrypto.
    /// - Parameters:
    ///   - pointer: The context, `nil` when libcrypto could not make it.
    ///   - function: The libcrypto function that made it, for the failure's message.
    init(_ pointer: OpaquePointer?, _ function: StaticString) {
        guard let pointer else { Self.failed(function) }
        self.pointer = pointer
    }

    deinit { crmcrypto_sha256_free(pointer) }

    /// Checks a libcrypto result (1 is success).
    /// - Parameters:
    ///   - result: What the function returned.
    ///   - function: Its name, for the failure's message.
    static func check(_ result: Int32, _ function: StaticString) {
        if result != 1 { failed(function) }
    }

    // NB: hashing in memory fails only when libcrypto cannot allocate (or was built
    // without SHA-256); like Swift's own allocation failure, that stops the process
    // rather than making every caller handle an error that input cannot cause.
    static func failed(_ function: StaticString) -> Never {
        fatalError("libcrypto: \(function) failed")
    }
}
