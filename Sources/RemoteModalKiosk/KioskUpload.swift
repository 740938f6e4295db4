/// One picker's upload, paced by the host's acknowledgements. Pure: the owner sends the
/// chunks it returns and reports each `uploadAck`.
///
/// At most `window` chunks are unacknowledged at any time; progress counts only what the
/// host acknowledged; after a reconnect each file continues at the offset the host says
/// it holds.
public struct KioskUpload: Sendable, Equatable {
    /// One file being sent.
    public struct File: Sendable, Equatable {
        /// The file name sent to the host.
        public var name: String
        /// Its MIME type.
        public var mimeType: String
        /// Its size in bytes.
        public var size: Int
        /// Its SHA-256, hex.
        public var sha256: String
        /// Contiguous bytes the host acknowledged.
        public var acknowledged = 0
        /// Whether the host acknowledged the whole file (an empty file: its one chunk).
        public var done = false
        /// Where the next chunk starts.
        var next = 0
        /// Whether the chunk marked `last` went out since the last (re)start.
        var sentLast = false

        /// Creates a file entry.
        /// - Parameters:
        ///   - name: The name.
        ///   - mimeType: The MIME type.
        ///   - size: The size.
        ///   - sha256: The hash, hex.
        public init(name: String, mimeType: String, size: Int, sha256: String) {
            self.name = name
            self.mimeType = mimeType
            self.size = size
            self.sha256 = sha256
        }
    }

    /// A piece to send: `length` bytes of file `file` from `offset`.
    public struct Chunk: Sendable, Equatable {
        /// The file's index.
        public var file: Int
        /// The first byte.
        public var offset: Int
        /// How many bytes.
        public var length: Int
        /// Whether it ends the file.
        public var last: Bool

        /// Creates a chunk description.
        /// - Parameters:
        ///   - file: The file's index.
        ///   - offset: The first byte.
        ///   - length: How many bytes.
        ///   - last: Whether it ends the file.
        public init(file: Int, offset: Int, length: Int, last: Bool) {
            self.file = file
            self.offset = offset
            self.length = length
            self.last = last
        }
    }

    /// The files.
    public private(set) var files: [File]
    /// The most chunks kept unacknowledged.
    public let window: Int
    /// Bytes per chunk.
    public let chunkSize: Int
    /// Chunks sent and not yet acknowledged.
    public private(set) var inFlight = 0
    /// Whether sending waits (disconnected, or the host refused a chunk).
    public private(set) var paused = false

    /// Starts an upload.
    /// - Parameters:
    ///   - files: The files.
    ///   - window: The host's `uploadWindow` (at least 1).
    ///   - chunkSize: Bytes per chunk.
    public init(files: [File], window: Int = 8, chunkSize: Int = 32_768) {
        self.files = files
        self.window = max(1, window)
        self.chunkSize = max(1, chunkSize)
    }

    /// Bytes of all files.
    public var total: Int { files.reduce(0) { $0 + $1.size } }
    /// Bytes the host acknowledged.
    public var acknowledged: Int { files.reduce(0) { $0 + $1.acknowledged } }
    /// Whether the host acknowledged every file in full.
    public var complete: Bool { files.allSatisfy(\.done) }

    /// The chunks to send now to fill the window (none while paused).
    /// - Returns: The chunks, in order.
    public mutating func nextChunks() -> [Chunk] {
        guard !paused else { return [] }
        var chunks: [Chunk] = []
        while inFlight < window, let index = files.firstIndex(where: { !$0.done && !$0.sentLast }) {
            let file = files[index]
            let length = min(chunkSize, file.size - file.next)
            let last = file.next + length >= file.size
            chunks.append(Chunk(file: index, offset: file.next, length: length, last: last))
            files[index].next += length
            files[index].sentLast = last
            inFlight += 1
        }
        return chunks
    }

    /// Applies an `uploadAck`.
    /// - Parameters:
    ///   - file: The file's index.
    ///   - received: The contiguous bytes the host now holds of it.
    public mutating func acknowledge(file: Int, received: Int) {
        guard files.indices.contains(file) else { return }
        inFlight = max(0, inFlight - 1)
        files[file].acknowledged = max(files[file].acknowledged, min(received, files[file].size))
        if received >= files[file].size, files[file].sentLast { files[file].done = true }
    }

    /// Stops sending (the connection dropped, or the host refused a chunk); what was in
    /// flight is forgotten.
    public mutating func pause() {
        paused = true
        inFlight = 0
    }

    /// Continues each file at the offset the host holds (files it does not name: from 0).
    /// - Parameter held: File index to bytes held.
    public mutating func resume(held: [Int: Int]) {
        paused = false
        inFlight = 0
        for index in files.indices where !files[index].done {
            let bytes = min(max(0, held[index] ?? 0), files[index].size)
            files[index].acknowledged = bytes
            files[index].next = bytes
            files[index].sentLast = false
            files[index].done = bytes == files[index].size && bytes > 0
        }
    }

    /// Continues from what the host acknowledged (after an `upload_invalid`).
    public mutating func retry() {
        resume(held: Dictionary(uniqueKeysWithValues: files.indices.map { ($0, files[$0].acknowledged) }))
    }

    /// Bytes as people read them: "512 B", "64.0 kB", "9.1 MB" (powers of 1000).
    /// - Parameter bytes: The count.
    /// - Returns: The text.
    public static func format(_ bytes: Int) -> String {
        let units = ["kB", "MB", "GB", "TB"]
        guard bytes >= 1_000 else { return "\(bytes) B" }
        var value = Double(bytes) / 1_000
        var unit = 0
        while value >= 999.95, unit < units.count - 1 {
            value /= 1_000
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
