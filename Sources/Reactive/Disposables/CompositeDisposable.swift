import Locking
import Synchronization

/// A group of disposables disposed together; members can be added and removed by key.
/// Adding to a disposed group disposes the newcomer at once.
public final class CompositeDisposable: Disposable, Sendable {
    /// Identifies a member, to remove it later.
    public struct Key: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    /// Members in the order they were added; their keys increase along the array, so a
    /// key is found by binary search and disposal needs no sorting.
    private struct State {
        var members: [(key: UInt64, disposable: any Disposable)] = []
        var nextKey: UInt64 = 0
        var disposed = false

        func index(of key: UInt64) -> Int? {
            var low = 0
            var high = members.count
            while low < high {
                let middle = (low + high) / 2
                if members[middle].key < key { low = middle + 1 } else { high = middle }
            }
            return low < members.count && members[low].key == key ? low : nil
        }
    }

    private let state = Locked(State())

    /// Creates an empty group.
    public init() {}

    /// Creates a group holding the given disposables.
    /// - Parameter disposables: The initial members.
    public init(_ disposables: [any Disposable]) {
        state.withLock { state in
            state.members.reserveCapacity(disposables.count)
            for disposable in disposables {
                state.members.append((state.nextKey, disposable))
                state.nextKey += 1
            }
        }
    }

    /// Whether the group has been disposed.
    public var isDisposed: Bool { state.withLock { $0.disposed } }

    /// The number of live members.
    public var count: Int { state.withLock { $0.members.count } }

    /// Adds a member.
    /// - Parameter disposable: The disposable to hold.
    /// - Returns: Its key, or `nil` when the group was already disposed (the newcomer
    ///   has then been disposed).
    @discardableResult
    public func insert(_ disposable: any Disposable) -> Key? {
        let key: UInt64? = state.withLock { state in
            guard !state.disposed else { return nil }
            defer { state.nextKey += 1 }
            state.members.append((state.nextKey, disposable))
            return state.nextKey
        }
        guard let key else {
            disposable.dispose()
            return nil
        }
        return Key(value: key)
    }

    /// Removes a member and disposes it.
    /// - Parameter key: The key `insert` returned.
    public func remove(for key: Key) {
        let member = state.withLock { state in state.index(of: key.value).map { state.members.remove(at: $0) } }
        member?.disposable.dispose()
    }

    /// Disposes every member, once.
    public func dispose() {
        let members = state.withLock { state -> [(key: UInt64, disposable: any Disposable)] in
            guard !state.disposed else { return [] }
            state.disposed = true
            defer { state.members = [] }
            return state.members
        }
        for member in members { member.disposable.dispose() }
    }
}
