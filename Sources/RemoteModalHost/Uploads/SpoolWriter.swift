import Dispatch
import Foundation
import RemoteModalLocking

/// Writes one upload's spool file off the host's loop, in order.
///
/// A `write` to the page cache usually takes microseconds, but when the kernel throttles
/// writers (dirty pages past their limit, a slow or shared disk) it sleeps the caller for
/// up to hundreds of milliseconds: on the loop that froze every session (issue 31: a
/// bystander's p99 of 0.57 s next to four uploads, 9.5 ms when the same uploads stayed in
/// memory). The loop now hands a file's bytes to one serial queue for all spool files and
/// goes on; it waits for the queue only when a file has more than `maxPendingBytes` queued
/// (the disk is behind: memory stays bounded) and when the file is handed over.
///
/// Chunks are handed over `batchBytes` at a time, not one by one: waking the queue's thread
/// for every 32 KiB chunk (a semaphore post, a context switch each way) was about a tenth of
/// the host's CPU while it received uploads (issue 31).
///
/// Created and used on the host's executor; the queue's closures touch only the handle
/// and the locked state.
final class SpoolWriter: @unchecked Sendable {
    /// One queue for every spool file of the process: writes stay in order, and the disk
    /// sees one writer.
    private static let queue = DispatchQueue(label: "remote-modal.upload-spool")
    /// Bytes one file may have queued before `write` waits for the disk.
    static let maxPendingBytes = 1_048_576
    /// Bytes gathered on the loop before they are handed to the queue in one go.
    static let batchBytes = 262_144

    private struct State {
        var pending = 0
        var failed = false
    }

    private let handle: FileHandle
    private let state = Locked(State())
    /// Chunks not yet handed to the queue (the executor's only).
    private var batch: [Data] = []
    private var batchCount = 0

    /// Takes over an open handle, positioned where the bytes go.
    /// - Parameter handle: The spool file, open for writing.
    init(handle: FileHandle) {
        self.handle = handle
    }

    /// Queues bytes to be appended.
    /// - Parameter data: The bytes (owned by the queue from now on).
    /// - Returns: `false` when an earlier write of this file failed (nothing is queued then).
    func write(_ data: Data) -> Bool {
        guard !state.withLock({ $0.failed }) else { return false }
        batch.append(data)
        batchCount += data.count
        if batchCount >= Self.batchBytes { return flush() }
        return true
    }

    /// Hands the gathered chunks to the queue.
    /// - Returns: `false` when an earlier write of this file failed.
    private func flush() -> Bool {
        guard batchCount > 0 else { return !state.withLock { $0.failed } }
        let chunks = batch
        let count = batchCount
        batch = []
        batchCount = 0
        let pending = state.withLock { state -> Int? in
            guard !state.failed else { return nil }
            state.pending += count
            return state.pending
        }
        guard let pending else { return false }
        Self.queue.async { [handle, state] in
            var written = true
            do {
                for chunk in chunks { try handle.write(contentsOf: chunk) }
            } catch { written = false }
            state.withLock { state in
                state.pending -= count
                if !written { state.failed = true }
            }
        }
        if pending > Self.maxPendingBytes {
            // NB: the disk is behind; waiting here is what the loop did for every chunk before.
            Self.queue.sync {}
        }
        return !state.withLock { $0.failed }
    }

    /// Closes the file without writing what is still gathered (the file is being dropped).
    func abandon() {
        batch = []
        batchCount = 0
        Self.queue.async { [handle] in try? handle.close() }
    }

    /// Closes the file after the bytes already written to this writer.
    func close() {
        _ = flush()
        Self.queue.async { [handle] in try? handle.close() }
    }

    /// Waits until every queued write (and a queued close) is done.
    /// - Returns: Whether every write succeeded.
    func finish() -> Bool {
        _ = flush()
        Self.queue.sync {}
        return !state.withLock { $0.failed }
    }
}
