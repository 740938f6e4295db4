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
    /// The most bytes reserved by one client address.
    let maxReservedPerAddress: Int
    private var reservedByAddress: [String: Int] = [:]

    init(maxMemory: Int, maxReserved: Int, maxReservedPerAddress: Int = .max, spool: SpoolDirectory) {
        self.maxMemory = maxMemory
        self.maxReserved = maxReserved
        self.maxReservedPerAddress = maxReservedPerAddress
        self.spool = spool
    }

    /// What `reserve` decided.
    enum Reservation {
        case reserved
        case hostFull
        case addressFull
    }

    /// The last part of `maxReserved` kept for addresses that hold little: a quarter.
    var keptForNewcomers: Int { maxReserved / 4 }
    /// What an address may hold in all and still reserve from the kept quarter: an eighth of
    /// `maxReservedPerAddress` (16 MiB at the default 128 MiB).
    var newcomerLimit: Int { maxReservedPerAddress == .max ? maxReserved / 8 : maxReservedPerAddress / 8 }

    /// Reserves room for a file of `bytes` on behalf of a client address.
    ///
    /// The budget's last quarter goes only to addresses that would hold at most
    /// `newcomerLimit` with it: uploads kept alive at the minimum rate from a few addresses
    /// (each within its own cap) cannot take the whole budget, and a person uploading a photo
    /// from another address still finds room (issue 33, round four: nine addresses
    /// trickling just above `--upload-min-rate` held all of it).
    func reserve(_ bytes: Int, for address: String) -> Reservation {
        guard bytes >= 0, reserved + bytes <= maxReserved else { return .hostFull }
        let mine = reservedByAddress[address, default: 0]
        guard mine + bytes <= maxReservedPerAddress else { return .addressFull }
        if reserved + bytes > maxReserved - keptForNewcomers, mine + bytes > newcomerLimit { return .hostFull }
        reserved += bytes
        reservedByAddress[address] = mine + bytes
        return .reserved
    }

    /// Returns a reservation.
    func release(_ bytes: Int, for address: String) {
        reserved = max(0, reserved - bytes)
        let left = reservedByAddress[address, default: 0] - bytes
        reservedByAddress[address] = left > 0 ? left : nil
    }

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
