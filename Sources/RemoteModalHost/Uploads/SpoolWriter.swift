import Dispatch
import Foundation
import RemoteModalLocking

/// Writes one upload's spool file off the host's loop, in order.
///
/// A `write` to the page cache usually takes microseconds, but when the kernel throttles
/// writers (dirty pages past their limit, a slow or shared disk) it sleeps the caller for
/// up to hundreds of milliseconds: on the loop that froze every session (issue 31: a
/// bystander's p99 of 0.57 s next to four uploads, 9.5 ms when the same uploads stayed in
/// memory). The loop now hands each chunk's bytes to one serial queue for all spool files
/// and goes on; it waits for the queue only when a file has more than `maxPendingBytes`
/// queued (the disk is behind: memory stays bounded) and when the file is handed over.
///
/// Created and used on the host's executor; the queue's closures touch only the handle
/// and the locked state.
final class SpoolWriter: @unchecked Sendable {
    /// One queue for every spool file of the process: writes stay in order, and the disk
    /// sees one writer.
    private static let queue = DispatchQueue(label: "remote-modal.upload-spool")
    /// Bytes one file may have queued before `write` waits for the disk.
    static let maxPendingBytes = 1_048_576

    private struct State {
        var pending = 0
        var failed = false
    }

    private let handle: FileHandle
    private let state = Locked(State())

    /// Takes over an open handle, positioned where the bytes go.
    /// - Parameter handle: The spool file, open for writing.
    init(handle: FileHandle) {
        self.handle = handle
    }

    /// Queues bytes to be appended.
    /// - Parameter data: The bytes (owned by the queue from now on).
    /// - Returns: `false` when an earlier write of this file failed (nothing is queued then).
    func write(_ data: Data) -> Bool {
        let pending = state.withLock { state -> Int? in
            guard !state.failed else { return nil }
            state.pending += data.count
            return state.pending
        }
        guard let pending else { return false }
        Self.queue.async { [handle, state] in
            var written = true
            do { try handle.write(contentsOf: data) } catch { written = false }
            state.withLock { state in
                state.pending -= data.count
                if !written { state.failed = true }
            }
        }
        if pending > Self.maxPendingBytes {
            // NB: the disk is behind; waiting here is what the loop did for every chunk before.
            Self.queue.sync {}
        }
        return !state.withLock { $0.failed }
    }

    /// Closes the file after the bytes already queued.
    func close() {
        Self.queue.async { [handle] in try? handle.close() }
    }

    /// Waits until every queued write (and a queued close) is done.
    /// - Returns: Whether every write succeeded.
    func finish() -> Bool {
        Self.queue.sync {}
        return !state.withLock { $0.failed }
    }
}
