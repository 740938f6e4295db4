import RemoteModalProtocol

/// One picker's upload, paced by the host's acknowledgements: at most `window` chunks
/// requested or sent and not answered; progress counts acknowledged bytes only; after
/// a resume each file continues at what the host holds. After a pacing refusal it sends
/// nothing until every chunk in flight was acknowledged or refused (protocol.md §7).
struct UploadPlan: Sendable, Equatable {
    struct Pending: Sendable, Equatable {
        var file: Int
        var offset: Int
        var length: Int
        var last: Bool
    }

    let files: [PickedFileInfo]
    var window: Int
    let chunkBytes: Int
    private(set) var acknowledged: [Int]
    private var next: [Int]
    private var sentLast: [Bool]
    private(set) var done: [Bool]
    /// Chunks asked of the reader, or sent and not yet acknowledged or refused.
    private(set) var inFlight = 0
    /// Whether it waits for the replies to the chunks in flight before going on (after a rewind).
    private(set) var draining = false
    /// Per file, the `held` of the last refusal while draining: where that file goes on from.
    private var drainHeld: [Int: Int] = [:]
    /// Chunks asked of the reader and not yet sent.
    private(set) var reading: [Pending] = []
    /// Whether chunks may go out (false while offline, after a refusal, before the resume's `received`).
    private(set) var running = false
    /// The refusal that stopped the upload, if any.
    var stopped: String?

    init(files: [PickedFileInfo], window: Int, chunkBytes: Int) {
        self.files = files
        self.window = max(1, window)
        self.chunkBytes = max(1, chunkBytes)
        acknowledged = files.map { _ in 0 }
        next = acknowledged
        sentLast = files.map { _ in false }
        done = sentLast
    }

    var total: Int { files.reduce(0) { $0 + $1.size } }
    var acknowledgedBytes: Int { acknowledged.reduce(0, +) }
    var complete: Bool { done.allSatisfy { $0 } }

    /// The chunks to read now to fill the window.
    mutating func requests() -> [Pending] {
        guard running, !draining, stopped == nil else { return [] }
        var asked: [Pending] = []
        while inFlight < window, let index = files.indices.first(where: { !done[$0] && !sentLast[$0] }) {
            let length = min(chunkBytes, files[index].size - next[index])
            let last = next[index] + length >= files[index].size
            let pending = Pending(file: index, offset: next[index], length: length, last: last)
            next[index] += length
            sentLast[index] = last
            inFlight += 1
            reading.append(pending)
            asked.append(pending)
        }
        return asked
    }

    /// Takes a read chunk out of `reading`; `nil` when it was not asked for (a stale read).
    mutating func take(file: Int, offset: Int) -> Pending? {
        guard let index = reading.firstIndex(where: { $0.file == file && $0.offset == offset }) else { return nil }
        return reading.remove(at: index)
    }

    mutating func acknowledge(file: Int, received: Int) {
        guard files.indices.contains(file) else { return }
        inFlight = max(0, inFlight - 1)
        acknowledged[file] = max(acknowledged[file], min(max(0, received), files[file].size))
        if received >= files[file].size, sentLast[file] { done[file] = true }
        goOnIfReplied()
    }

    /// Stops sending; what was in flight is forgotten (the host's `received` says the rest).
    mutating func pause() {
        running = false
        inFlight = 0
        reading = []
        draining = false
        drainHeld = [:]
    }

    /// Continues each file at the bytes the host holds (files it does not name: from 0).
    mutating func resume(held: [Int: Int]) {
        running = true
        inFlight = 0
        reading = []
        draining = false
        drainHeld = [:]
        for index in files.indices where !done[index] {
            let bytes = min(max(0, held[index] ?? 0), files[index].size)
            acknowledged[index] = bytes
            next[index] = bytes
            sentLast[index] = false
            done[index] = bytes == files[index].size && bytes > 0
        }
    }

    /// The host said it holds `bytes` of `file` after refusing a chunk: fewer than it
    /// acknowledged when it dropped them. A retry goes on from there.
    mutating func hold(file: Int, bytes: Int) {
        guard files.indices.contains(file), !done[file] else { return }
        acknowledged[file] = min(max(0, bytes), files[file].size)
    }

    /// Goes on from what the host acknowledged (after `rate_limited`, a chunk refused behind
    /// one, or a retry), once every chunk in flight has its reply: until then nothing is sent
    /// and the reads not yet sent are dropped (protocol.md §7, "After a refusal").
    /// - Parameters:
    ///   - refused: Whether this is the reply to one chunk in flight (a refusal of it), which
    ///     frees its slot.
    ///   - held: When the refusal said it, what the host holds of one file: that file goes on
    ///     from the last such `held` (an acknowledgement after it is of an earlier chunk and
    ///     does not move it).
    mutating func rewind(refused: Bool = false, held: (file: Int, bytes: Int)? = nil) {
        inFlight = max(0, inFlight - reading.count - (refused ? 1 : 0))
        reading = []
        if let held, files.indices.contains(held.file) { drainHeld[held.file] = held.bytes }
        draining = true
        goOnIfReplied()
    }

    /// Ends a rewind once nothing is in flight: each file from the `held` of its last refusal
    /// (§7), less than acknowledged too when the host dropped bytes; a file no refusal named
    /// (or an older host's, which sends no `held`) from its acknowledged bytes.
    private mutating func goOnIfReplied() {
        guard draining, inFlight == 0 else { return }
        var bytes = Dictionary(uniqueKeysWithValues: files.indices.map { ($0, acknowledged[$0]) })
        for (file, held) in drainHeld { bytes[file] = held }
        resume(held: bytes)
    }

    var items: [PickedItem] {
        files.map { PickedItem(name: $0.name, mimeType: $0.mimeType, size: $0.size, sha256: $0.sha256) }
    }
}

/// Standard base64 with padding, as `upload.data` carries it.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 2 < bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(value >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(value >> 18 & 63)])
            output.append(alphabet[Int(value >> 12 & 63)])
            output.append(rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }
}
