import Foundation
import RemoteModalCrypto
import RemoteModalProtocol

/// How long one 32 KiB upload chunk holds the host's loop, stage by stage (issue 31): the
/// message's JSON decode, the base64 decode, the SHA-256 update and the store (appended
/// in memory, or written to a spool file), each timed over `chunks` chunks in one thread,
/// then all four together as `UploadAssembly.add` runs them. Foundation's
/// `Data(base64Encoded:)`, which the host used before, is timed alongside for reference.
public struct ChunkCost: Sendable {
    /// Chunks timed per stage.
    public var chunks = 2_000
    /// The folder of the spool file (removed afterwards).
    public var spoolFolder = FileManager.default.temporaryDirectory

    /// Creates a workload with the defaults.
    public init() {}

    /// One stage's times per chunk.
    public struct Row: Sendable {
        /// What was timed.
        public let stage: String
        /// Per chunk, in µs.
        public let latency: LatencyStats
        /// Mean per chunk, in µs.
        public let mean: Double
    }

    /// Runs every stage.
    /// - Returns: One row a stage, in order.
    /// - Throws: When the spool file cannot be made, or a stage decodes wrongly.
    public func run() throws -> [Row] {
        var state: UInt64 = 42
        let bytes = (0..<32 * 1_024).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let base64 = Data(bytes).base64EncodedString()
        let text =
            "{\"type\":\"upload\",\"id\":\"m1\",\"file\":0,\"name\":\"photo-0.jpg\",\"mimeType\":\"image/jpeg\","
            + "\"size\":3145728,\"offset\":32768,\"data\":\"\(base64)\",\"last\":false}"
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 2, alignment: 16)
        defer { scratch.deallocate() }
        let url = spoolFolder.appendingPathComponent("chunk-cost-\(getpid()).spool")
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let spool = try? FileHandle(forWritingTo: url)
        else { throw CocoaError(.fileWriteUnknown) }
        defer {
            try? spool.close()
            try? FileManager.default.removeItem(at: url)
        }

        func time(_ stage: String, _ body: () throws -> Void) rethrows -> Row {
            for _ in 0..<min(50, chunks) { try body() }  // warm caches and the allocator
            var samples: [Double] = []
            samples.reserveCapacity(chunks)
            for _ in 0..<chunks {
                let start = nowMicros()
                try body()
                samples.append(nowMicros() - start)
            }
            return Row(
                stage: stage, latency: LatencyStats(samples: samples),
                mean: samples.reduce(0, +) / Double(samples.count))
        }
        func decodeMessage() throws -> UploadChunk {
            guard case .upload(let chunk) = try ClientMessage.decode(text) else { throw CocoaError(.coderInvalidValue) }
            return chunk
        }
        func decodeBase64(_ data: String) throws -> UnsafeRawBufferPointer {
            var data = data
            let count = data.withUTF8 { Base64.decode(utf8: $0, into: scratch) }
            guard count == bytes.count else { throw CocoaError(.coderInvalidValue) }
            return UnsafeRawBufferPointer(rebasing: scratch[0..<count!])
        }
        var memory = Data()
        var written = 0
        func storeInMemory(_ chunk: UnsafeRawBufferPointer) {
            // The host keeps a file in memory up to 256 KiB: eight chunks.
            if memory.count >= 256 * 1_024 { memory = Data() }
            memory.append(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: chunk.count)
        }
        func storeInSpool(_ chunk: UnsafeRawBufferPointer) throws {
            // A 3 MiB photo, then the next one (page cache only: nothing waits for the disk).
            if written >= 3 * 1_048_576 {
                try spool.truncate(atOffset: 0)
                written = 0
            }
            try spool.write(contentsOf: chunk)
            written += chunk.count
        }
        let chunk = try decodeMessage()
        let decoded = try decodeBase64(chunk.data)
        var hash = SHA256()
        var rows: [Row] = []
        rows.append(try time("JSON decode of the upload message") { _ = try decodeMessage() })
        rows.append(try time("base64 decode (Base64, table-driven)") { _ = try decodeBase64(chunk.data) })
        rows.append(
            try time("base64 decode (Foundation Data(base64Encoded:), before)") {
                guard Data(base64Encoded: chunk.data)?.count == bytes.count else {
                    throw CocoaError(.coderInvalidValue)
                }
            })
        rows.append(time("SHA-256 update (libcrypto EVP)") { hash.update(decoded) })
        rows.append(time("store in memory (Data append)") { storeInMemory(decoded) })
        rows.append(try time("store in a spool file (write)") { try storeInSpool(decoded) })
        rows.append(
            try time("all: JSON + base64 + SHA-256 + spool write") {
                let chunk = try decodeMessage()
                let decoded = try decodeBase64(chunk.data)
                hash.update(decoded)
                try storeInSpool(decoded)
            })
        guard hash.finalize().bytes.count == SHA256Digest.byteCount else { throw CocoaError(.coderInvalidValue) }
        return rows
    }
}
