import Foundation
import RemoteModalTransport

/// How a server splits the process's file descriptors between connections and
/// everything else. Pure arithmetic besides `raiseOpenFileLimit`.
struct FileDescriptorBudget: Equatable {
    /// Table slots beyond the WebSocket connections: the listen socket, lws's wake-up
    /// pipe, and plain HTTP requests (`/healthz`, static files, upgrades in progress)
    /// while the WebSocket limit is reached.
    static let httpHeadroom = 32

    /// The soft open-file limit the budget was made for.
    let openFileLimit: Int
    /// The descriptors connections may take (WebSocket and plain HTTP).
    let tableSize: Int
    /// Descriptor numbers from here up are the reserve for files: an accepted socket that
    /// gets one is closed at once.
    let acceptCeiling: Int
    /// The most WebSocket connections at once.
    let maxConnections: Int

    /// - Parameters:
    ///   - openFileLimit: The soft `RLIMIT_NOFILE`.
    ///   - reserve: Descriptors kept for files, spool files and logs.
    ///   - maxConnections: The configured connection limit.
    init(openFileLimit: Int, reserve: Int, maxConnections: Int) {
        self.openFileLimit = openFileLimit
        let available = max(Self.httpHeadroom + 8, openFileLimit - max(0, reserve))
        tableSize = min(maxConnections + Self.httpHeadroom, available)
        acceptCeiling = available
        self.maxConnections = max(1, tableSize - Self.httpHeadroom)
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (process-wide, idempotent).
    /// - Returns: The soft limit now in force.
    static func raiseOpenFileLimit() -> Int {
        // RLIM_INFINITY does not import (its macro is a cast); an infinite limit clamps to 2^20.
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return min(1 << 20, Int(clamping: limit.rlim_cur))
    }
}
