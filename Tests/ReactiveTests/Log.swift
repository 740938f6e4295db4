import RemoteModalLocking
import Synchronization

/// A thread-safe list of strings that tests append to.
final class Log: Sendable {
    private let storage = Locked<[String]>([])
    func append(_ entry: String) { storage.withLock { $0.append(entry) } }
    var entries: [String] { storage.withLock { $0 } }
}
