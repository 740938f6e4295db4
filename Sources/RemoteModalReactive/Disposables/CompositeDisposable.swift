import RemoteModalLocking
import Synchronization

/// A group of disposables disposed together; members can be added and removed by key.
/// Adding to a disposed group disposes the newcomer at once.
public final class CompositeDisposable: Disposable, Sendable {
    /// Identifies a member, to remove it later.
    public struct Key: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    /// Members in the order they were added; their keys increase along the array, so a
    /// key is found by binary search and disposal needs no sorting. A removed member
    /// leaves a hole (`nil`) until holes are half the array, then the array is compacted:
    /// removal stays amortized O(log n) for a group of thousands (a merge's inner
    /// subscriptions).
    private struct State {
        var members: [(key: UInt64, disposable: (any Disposable)?)] = []
        var live = 0
        var nextKey: UInt64 = 0
        var disposed = false

        mutating func append(_ disposable: any Disposable) -> UInt64 {
            defer { nextKey += 1 }
            members.append((nextKey, disposable))
            live += 1
            return nextKey
        }

        mutating func remove(_ key: UInt64) -> (any Disposable)? {
            var low = 0
            var high = members.count
            while low < high {
                let middle = (low + high) / 2
                if members[middle].key < key { low = middle + 1 } else { high = middle }
            }
            guard low < members.count, members[low].key == key, let found = members[low].disposable else { return nil }
            members[low].disposable = nil
            live -= 1
            if members.count > 16, live * 2 < members.count { members.removeAll { $0.disposable == nil } }
            return found
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
            for disposable in disposables { _ = state.append(disposable) }
        }
    }

    /// Whether the group has been disposed.
    public var isDisposed: Bool { state.withLock { $0.disposed } }

    /// The number of live members.
    public var count: Int { state.withLock { $0.live } }

    /// Adds a member.
    /// - Parameter disposable: The disposable to hold.
    /// - Returns: Its key, or `nil` when the group was already disposed (the newcomer
    ///   has then been disposed).
    @discardableResult
    public func insert(_ disposable: any Disposable) -> Key? {
        let key: UInt64? = state.withLock { state in
            guard !state.disposed else { return nil }
            return state.append(disposable)
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
        let member = state.withLock { $0.remove(key.value) }
        member?.dispose()
    }

    /// Disposes every member, once.
    public func dispose() {
        let members = state.withLock { state -> [(key: UInt64, disposable: (any Disposable)?)] in
            guard !state.disposed else { return [] }
            state.disposed = true
            defer {
                state.members = []
                state.live = 0
            }
            return state.members
        }
        for member in members { member.disposable?.dispose() }
    }
}
