import Foundation
import RemoteModalCrypto
import RemoteModalProtocol

/// A refused upload chunk: the error for the client, and whether the file's held bytes
/// were dropped (they stay for an offset that does not continue them).
struct UploadRefusal: Error {
    let error: ProtocolError
    let droppedFile: Bool
}

/// Reassembles one picker's uploads: offsets contiguous, sizes consistent, total within
/// `maxBytes`, and the host-wide `UploadBudget` respected. Bytes are held in memory while
/// the file is small and the host's memory budget allows, otherwise in a spool file.
/// What is held survives disconnects (the presentation outlives its connections).
///
/// Executor-confined: `@unchecked Sendable` only so closures that hop onto the executor
/// can carry it.
final class UploadAssembly: @unchecked Sendable {
    private final class FileInProgress {
        let name: String
        let mimeType: String
        let size: Int
        var received = 0
        var memory = Data()
        /// Set once the file moves to its spool file; kept (closed) until it is handed over.
        var spool: SpoolWriter?
        var spoolURL: URL?
        var hash = SHA256()
        var complete = false
        /// The file's first bytes, gathered across chunks until the picker's content rule can
        /// judge them (`AcceptedMedia.judge`); emptied once judged.
        var head = Data()
        var judged = false
        /// The MIME type the bytes were judged to be (the result carries it, not the declared one).
        var judgedType: String?
        /// The client address whose share of the budget reserves this file.
        let address: String
        /// When a chunk of it last arrived (seconds): a file that stops moving loses its
        /// reservation (`dropStalled`).
        var lastChunk: Double
        /// When the picker's first chunk arrived (seconds): the minimum rate counts from there,
        /// over the bytes accepted for the picker since (every file, every restart), so a file
        /// that starts again at offset 0, or another file index, does not start the clock again.
        var started: Double

        init(name: String, mimeType: String, size: Int, address: String, now: Double) {
            self.name = name
            self.mimeType = mimeType
            self.size = size
            self.address = address
            self.lastChunk = now
            self.started = now
        }

        /// When it loses its reservation unless more arrives: `stall` seconds after its last
        /// chunk, or once it falls behind `minimumRate` bytes a second counted from its first
        /// chunk after a grace of `stall` seconds (0: no minimum rate); `counted` is the bytes
        /// accepted for the picker since its first chunk.
        func due(stall: Double, minimumRate: Double, counted: Int) -> Double {
            let quiet = lastChunk + stall
            guard minimumRate > 0 else { return quiet }
            return min(quiet, started + stall + Double(counted) / minimumRate)
        }
    }

    /// The most bytes of one chunk, as docs/protocol.md says.
    static let maxChunkBytes = 32 * 1_024
    let maxBytes: Int
    let maxFiles: Int
    /// A file whose bytes pass this goes to a spool file even when memory allows.
    let spoolThreshold: Int
    /// The kinds of files the picker accepts (`nil`: any): the declared type at each file's
    /// first chunk, its bytes once enough of them are held.
    let accepted: AcceptedMedia?
    private let budget: UploadBudget
    private var files: [Int: FileInProgress] = [:]
    /// When this picker's first chunk arrived, moved later by every stretch in which it held
    /// no file in progress, and the bytes accepted since (see `FileInProgress.started`): the
    /// minimum rate counts only the time a reservation is held, so a person who takes a
    /// minute to choose again after a refused file is not told they are too slow (issue 32's
    /// cold trial), while a client that keeps a file in progress, however it restarts, is.
    private var firstChunkAt: Double?
    /// Since when the picker has held no file in progress (`nil`: it holds one, or never did).
    private var idleSince: Double?
    private var acceptedBytes = 0
    /// Set when every file was complete and no result came for the stall time, so the files
    /// were dropped (`dropStalled`): a result after it is told why, in these seconds.
    private var droppedUnansweredAfter: Int?
    /// Where each chunk's base64 is decoded: reused, so a chunk is copied once from its
    /// message text to here and once from here to memory or the spool file (and hashed in
    /// place). Owned by this assembly; freed in `deinit`.
    private let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: maxChunkBytes + 2)

    init(
        maxBytes: Int, maxFiles: Int, budget: UploadBudget, spoolThreshold: Int = 256 * 1_024,
        accepted: AcceptedMedia? = nil
    ) {
        self.maxBytes = maxBytes
        self.maxFiles = maxFiles
        self.budget = budget
        self.spoolThreshold = spoolThreshold
        self.accepted = accepted
    }

    deinit { scratch.deallocate() }

    /// Decodes a text chunk's base64 into `scratch`.
    /// - Returns: The decoded bytes (valid until the next chunk), `.notBase64` when the text
    ///   is not base64, or `.tooLong` when it is but decodes to more than `maxChunkBytes`.
    private func decode(_ text: String) -> Decoded {
        func run(_ utf8: UnsafeBufferPointer<UInt8>) -> Decoded {
            // A full chunk's 43,692 characters may decode to 32 KiB + 2 as far as their length
            // tells: `scratch` has room for that, and the count decides.
            guard Base64.maxDecodedCount(encodedCount: utf8.count) <= scratch.count else {
                // Too long if it is base64 at all: which of the two to say decides the error.
                return Base64.decode(utf8: utf8) == nil ? .notBase64 : .tooLong
            }
            guard let count = Base64.decode(utf8: utf8, into: UnsafeMutableRawBufferPointer(scratch)) else {
                return .notBase64
            }
            guard count <= Self.maxChunkBytes else { return .tooLong }
            return .bytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: scratch[0..<count])))
        }
        if let decoded = text.utf8.withContiguousStorageIfAvailable(run) { return decoded }
        var copy = text
        return copy.withUTF8(run)
    }

    private enum Decoded {
        case bytes(UnsafeRawBufferPointer)
        case notBase64
        case tooLong
    }

    /// The contiguous bytes held of each file that has any, by file index.
    var held: [ReceivedFile] {
        files.keys.sorted().compactMap { index in
            let file = files[index]!
            return file.received > 0 ? ReceivedFile(file: index, bytes: file.received) : nil
        }
    }

    /// The contiguous bytes held of one file (0 for a file not started or dropped).
    func heldBytes(of file: Int) -> Int { files[file]?.received ?? 0 }

    /// Adds a chunk. Offset 0 (re)starts a file; any other offset must equal what is held.
    /// - Returns: The contiguous bytes now held of the chunk's file, and the chunk's size.
    /// - Throws: `UploadRefusal`; an offset that does not continue the file keeps what is
    ///   held, any other violation drops that file's bytes.
    func add(
        _ chunk: UploadChunk, from address: String = "", now: Double = 0, stall: Double = 0, minimumRate: Double = 0
    ) throws(UploadRefusal) -> (
        held: Int, bytes: Int
    ) {
        func refuse(_ reason: String, drop: Bool = true) -> UploadRefusal {
            refusal(reason, file: chunk.file, drop: drop, now: now)
        }
        guard chunk.file < maxFiles else {
            throw refuse("file \(chunk.file) is past the selection limit of \(maxFiles)", drop: false)
        }
        if let raw = chunk.bytes {
            // A binary chunk's bytes are used where they are, not copied.
            guard raw.count <= Self.maxChunkBytes else { throw refuse("a chunk carries at most 32 KiB", drop: false) }
            return try raw.withUnsafeBytes { bytes in
                Result { () throws(UploadRefusal) -> (held: Int, bytes: Int) in
                    try accept(chunk, bytes, from: address, now: now, stall: stall, minimumRate: minimumRate)
                }
            }.get()
        }
        switch decode(chunk.data) {
        case .bytes(let bytes):
            return try accept(chunk, bytes, from: address, now: now, stall: stall, minimumRate: minimumRate)
        case .notBase64: throw refuse("field 'data' is not base64", drop: false)
        case .tooLong: throw refuse("a chunk carries at most 32 KiB", drop: false)
        }
    }

    /// A refusal of a chunk of `file`, dropping that file's bytes when `drop`.
    private func refusal(_ reason: String, file: Int, drop: Bool, now: Double) -> UploadRefusal {
        if drop { discard(file) }
        noteIdle(now)
        return UploadRefusal(error: ProtocolError(.uploadInvalid, reason, ref: "upload"), droppedFile: drop)
    }

    /// Adds a chunk's bytes (``add(_:from:now:stall:minimumRate:)`` after decoding).
    private func accept(
        _ chunk: UploadChunk, _ bytes: UnsafeRawBufferPointer, from address: String, now: Double, stall: Double,
        minimumRate: Double
    ) throws(UploadRefusal) -> (held: Int, bytes: Int) {
        func refuse(_ reason: String, drop: Bool = true) -> UploadRefusal {
            refusal(reason, file: chunk.file, drop: drop, now: now)
        }
        if chunk.offset == 0 {
            // A file starts (again: a client that lost track of what the host holds starts over).
            discard(chunk.file)
            let others = files.values.reduce(0) { $0 + $1.size }
            guard chunk.size >= 0, others + chunk.size <= maxBytes else {
                throw refuse("the files add up to more than \(maxBytes) bytes", drop: false)
            }
            // Time without a file in progress does not count (see `firstChunkAt`).
            if let idle = idleSince, let first = firstChunkAt { firstChunkAt = first + max(0, now - idle) }
            idleSince = nil
            // A picker already behind the minimum rate (counted from its first chunk, over every
            // file and restart) reserves nothing more: starting over does not buy time.
            if minimumRate > 0, let first = firstChunkAt,
                first + stall + Double(acceptedBytes) / minimumRate <= now
            {
                throw refuse(
                    "this upload is slower than \(Int(minimumRate)) bytes a second; choose the files again",
                    drop: false)
            }
            // The picker's filter, first on the declared type (the bytes are judged below, once
            // enough of them have arrived).
            if let refusal = accepted?.declaredRefusal(file: chunk.file, name: chunk.name, mimeType: chunk.mimeType) {
                throw refuse(refusal, drop: false)
            }
            switch budget.reserve(chunk.size, for: address) {
            case .reserved:
                break
            case .hostFull:
                throw refuse("host upload budget exhausted; try again later", drop: false)
            case .addressFull:
                throw refuse(
                    "upload budget of this client address exhausted (other uploads from it are in progress);"
                        + " try again later", drop: false)
            }
            let started = FileInProgress(
                name: chunk.name, mimeType: chunk.mimeType, size: chunk.size, address: address, now: now)
            if firstChunkAt == nil { firstChunkAt = now }
            started.started = firstChunkAt ?? now
            files[chunk.file] = started
        }
        guard let file = files[chunk.file] else {
            throw refuse("file \(chunk.file) must start at offset 0 (the host holds 0 bytes of it)", drop: false)
        }
        guard !file.complete else {
            throw refuse(
                "file \(chunk.file) is complete (the host holds all \(file.received) bytes); send the result",
                drop: false)
        }
        guard chunk.offset == file.received else {
            throw refuse(
                "offset \(chunk.offset) does not continue file \(chunk.file): the host holds \(file.received) bytes;"
                    + " send from offset \(file.received)", drop: false)
        }
        guard chunk.size == file.size, chunk.name == file.name else {
            throw refuse("file \(chunk.file) changed its name or size")
        }
        guard file.received + bytes.count <= file.size else {
            throw refuse("file \(chunk.file) is longer than its size")
        }
        if let refusal = judge(bytes, of: file, index: chunk.file) { throw refuse(refusal) }
        guard store(bytes, in: file) else { throw refuse("the host could not store the upload") }
        file.hash.update(bytes)
        file.received += bytes.count
        file.lastChunk = now
        acceptedBytes += bytes.count
        if chunk.last {
            guard file.received == file.size else {
                throw refuse("file \(chunk.file) ended after \(file.received) of \(file.size) bytes")
            }
            file.complete = true
            file.spool?.close()
            noteIdle(now)
        }
        return (file.received, bytes.count)
    }

    /// Adds a chunk's bytes to the file's head and, once the head holds what the content rule
    /// reads (`MediaSniffer.headLength` bytes, or the whole of a shorter file), judges it.
    /// - Returns: The refusal when the file's bytes are not of an accepted kind.
    private func judge(_ bytes: UnsafeRawBufferPointer, of file: FileInProgress, index: Int) -> String? {
        // An empty file carries no bytes to judge (a client may send one; it is nothing).
        guard let accepted, !file.judged, file.size > 0 else { return nil }
        let needed = min(file.size, MediaSniffer.headLength)
        let take = min(bytes.count, max(0, needed - file.head.count))
        if take > 0, let base = bytes.baseAddress {
            file.head.append(base.assumingMemoryBound(to: UInt8.self), count: take)
        }
        guard file.head.count >= needed else { return nil }
        file.judged = true
        defer { file.head = Data() }
        switch accepted.judge(file: index, name: file.name, mimeType: file.mimeType, head: file.head) {
        case .success(let type):
            file.judgedType = type
            return nil
        case .failure(let refusal):
            return refusal.text
        }
    }

    /// Keeps bytes in memory while the file is small and the host's memory budget allows;
    /// otherwise moves the file to a spool file. `false` when the disk refuses.
    private func store(_ bytes: UnsafeRawBufferPointer, in file: FileInProgress) -> Bool {
        if file.spool == nil, file.memory.count + bytes.count <= spoolThreshold, budget.takeMemory(bytes.count) {
            if let base = bytes.baseAddress, !bytes.isEmpty {
                file.memory.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            }
            return true
        }
        if file.spool == nil {
            guard let (url, handle) = budget.spool.createFile() else { return false }
            let spool = SpoolWriter(handle: handle)
            file.spool = spool
            file.spoolURL = url
            budget.returnMemory(file.memory.count)
            budget.spooled(file.memory.count)
            // What was held in memory goes first, from the queue like the rest.
            let held = file.memory
            file.memory = Data()
            guard held.isEmpty || spool.write(held) else { return false }
        }
        // The queue owns its copy: `bytes` is the reused decode buffer.
        guard let spool = file.spool, spool.write(Data(bytes)) else { return false }
        budget.spooled(bytes.count)
        return true
    }

    /// Checks the result's items against what was received and hands over the files.
    /// - Throws: `upload_invalid` when an item does not match the received bytes (every
    ///   file is then dropped, as docs/protocol.md says).
    func finish(_ items: [PickedItem]) throws(ProtocolError) -> [PickedFile] {
        func invalid(_ reason: String, file: Int? = nil) -> ProtocolError {
            reset()
            // Every file is dropped: the one named starts again from 0, as the others do.
            return ProtocolError(.uploadInvalid, reason, ref: "result", file: file, held: file.map { _ in 0 })
        }
        if files.isEmpty, let seconds = droppedUnansweredAfter, !items.isEmpty {
            throw invalid(
                "the host dropped the uploaded files: no result came within \(seconds) s of their last byte; "
                    + "send them again", file: 0)
        }
        guard items.count == files.count else {
            throw invalid("the result lists \(items.count) files but \(files.count) were uploaded")
        }
        for (index, item) in items.enumerated() {
            guard let file = files[index], file.complete else {
                throw invalid("file \(index) was not fully uploaded", file: index)
            }
            guard item.size == file.size, item.name == file.name else {
                throw invalid("file \(index): name or size differs from the upload", file: index)
            }
            guard item.sha256 == file.hash.finalize().hex else {
                throw invalid("file \(index): SHA-256 does not match", file: index)
            }
            // Its spool file is written off the loop: whole before it is handed over.
            guard file.spool?.finish() ?? true else {
                throw invalid("file \(index): the host could not store it", file: index)
            }
        }
        var picked: [PickedFile] = []
        for (index, item) in items.enumerated() {
            let file = files[index]!
            picked.append(
                PickedFile(
                    name: file.name,
                    // What the bytes were judged to be; an empty file has no bytes to judge.
                    mimeType: file.judgedType ?? (file.size == 0 ? "application/octet-stream" : file.mimeType),
                    declaredMimeType: file.mimeType, size: file.size, sha256: item.sha256,
                    data: file.spoolURL == nil ? file.memory : nil, fileURL: file.spoolURL))
            // Ownership of the bytes (and of the spool file) passes to the PickedFile.
            budget.returnMemory(file.memory.count)
            budget.spooled(-(file.spoolURL == nil ? 0 : file.received))
            budget.release(file.size, for: file.address)
        }
        files = [:]
        return picked
    }

    /// Drops everything received (the modal ended, or the person cancelled).
    func reset() {
        for index in Array(files.keys) { discard(index) }
    }

    /// Starts the idle stretch when no file is in progress any more.
    private func noteIdle(_ now: Double) {
        guard idleSince == nil, !files.values.contains(where: { !$0.complete }) else { return }
        idleSince = now
    }

    /// Drops one file's bytes, its spool file and its reservation.
    private func discard(_ index: Int) {
        guard let file = files.removeValue(forKey: index) else { return }
        file.spool?.abandon()
        if let url = file.spoolURL {
            budget.spool.remove(url)
            budget.spooled(-file.received)
        }
        budget.returnMemory(file.memory.count)
        budget.release(file.size, for: file.address)
    }

    /// When the next file in progress loses its reservation unless more of it arrives
    /// (`FileInProgress.due`), or `nil` when none is in progress.
    func nextDeadline(stall: Double, minimumRate: Double) -> Double? {
        files.values.lazy.filter { !$0.complete }.map {
            $0.due(stall: stall, minimumRate: minimumRate, counted: self.acceptedBytes)
        }.min() ?? unansweredDue(stall: stall)
    }

    /// When every file held is complete: `stall` seconds after the last chunk, when they are
    /// dropped unless the picker's result came (`nil` while a file is in progress, or none held).
    /// A client that uploads the whole budget and never answers would otherwise hold its
    /// reservation for as long as its connection lives (issue 33, round five).
    private func unansweredDue(stall: Double) -> Double? {
        guard !files.isEmpty, files.values.allSatisfy(\.complete) else { return nil }
        return files.values.map(\.lastChunk).max().map { $0 + stall }
    }

    /// Files dropped by `dropStalled`, by cause, with the client addresses they came from.
    struct Dropped: Equatable {
        /// Files that got no chunk for the stall time.
        var stalled = 0
        /// Files that kept moving, but slower than the minimum rate (trickling).
        var slow = 0
        /// Complete files whose result did not come for the stall time after the last chunk.
        var unanswered = 0
        /// The client addresses whose files were dropped, with how many.
        var addresses: [String: Int] = [:]
        /// Whether nothing was dropped.
        var isEmpty: Bool { stalled + slow + unanswered == 0 }
    }

    /// Drops files still in progress that are due at `now` (`FileInProgress.due`), so an
    /// upload left hanging, or trickled a byte at a time, by a connected client does not
    /// hold its share of the budget for ever. Complete files wait for the result while
    /// another is in progress; once all are complete, for `stall` seconds after the last chunk.
    /// - Returns: What was dropped.
    @discardableResult
    func dropStalled(now: Double, stall: Double, minimumRate: Double) -> Dropped {
        var dropped = Dropped()
        for (index, file) in files
        where !file.complete && file.due(stall: stall, minimumRate: minimumRate, counted: acceptedBytes) <= now {
            if file.lastChunk + stall <= now { dropped.stalled += 1 } else { dropped.slow += 1 }
            dropped.addresses[file.address, default: 0] += 1
            discard(index)
        }
        if let due = unansweredDue(stall: stall), due <= now {
            for (index, file) in files {
                dropped.unanswered += 1
                dropped.addresses[file.address, default: 0] += 1
                discard(index)
            }
            droppedUnansweredAfter = Int(stall.rounded())
        }
        if !dropped.isEmpty { noteIdle(now) }
        return dropped
    }
}
