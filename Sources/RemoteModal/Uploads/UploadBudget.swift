import Foundation

/// The host-wide budget for uploads in progress: bytes held in memory, and bytes reserved
/// (the declared sizes of the files being received, wherever they are held).
///
/// Executor-confined: `@unchecked Sendable` only so closures that hop onto the executor
/// can carry it.
final class UploadBudget: @unchecked Sendable {
    /// The most bytes held in memory across all uploads.
    let maxMemory: Int
    /// The most bytes reserved across all uploads in progress.
    let maxReserved: Int
    /// Where spool files go.
    let spool: SpoolDirectory
    /// Bytes now held in memory.
    private(set) var memoryInUse = 0
    /// Bytes now reserved.
    private(set) var reserved = 0
    /// Bytes now written to spool files (of uploads still in progress).
    private(set) var spooled = 0

    init(maxMemory: Int, maxReserved: Int, spool: SpoolDirectory) {
        self.maxMemory = maxMemory
        self.maxReserved = maxReserved
        self.spool = spool
    }

    /// Reserves room for a file of `bytes`; `false` when the host budget would be passed.
    func reserve(_ bytes: Int) -> Bool {
        guard bytes >= 0, reserved + bytes <= maxReserved else { return false }
        reserved += bytes
        return true
    }

    /// Returns a reservation.
    func release(_ bytes: Int) { reserved = max(0, reserved - bytes) }

    /// Takes `bytes` of memory; `false` when the memory budget would be passed.
    func takeMemory(_ bytes: Int) -> Bool {
        guard memoryInUse + bytes <= maxMemory else { return false }
        memoryInUse += bytes
        return true
    }

    /// Returns memory taken with `takeMemory`.
    func returnMemory(_ bytes: Int) { memoryInUse = max(0, memoryInUse - bytes) }

    /// Counts bytes written to (positive) or removed from (negative) spool files.
    func spooled(_ delta: Int) { spooled = max(0, spooled + delta) }
}
