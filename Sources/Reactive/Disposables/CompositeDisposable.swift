import Locking
import Synchronization

/// A group of disposables disposed together; members can be added and removed by key.
/// Adding to a disposed group disposes the newcomer at once.
public final class CompositeDisposable: Disposable, Sendable {
    /// Identifies a member, to remove it later.
    public struct Key: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private struct State {
        var members: [UInt64: any Disposable] = [:]
        var nextKey: UInt64 = 0
        var disposed = false
    }

    private let state = Locked(State())

    /// Creates an empty group.
    public init() {}

    /// Creates a group holding the given disposables.
    /// - Parameter disposables: The initial members.
    public init(_ disposables: [any Disposable]) {
        state.withLock { state in
            for disposable in disposables {
                state.members[state.nextKey] = disposable
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
            state.members[state.nextKey] = disposable
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
        let member = state.withLock { $0.members.removeValue(forKey: key.value) }
        member?.dispose()
    }

    /// Disposes every member, once.
    public func dispose() {
        let members: [any Disposable] = state.withLock { state in
            guard !state.disposed else { return [] }
            state.disposed = true
            defer { state.members = [:] }
            return state.members.sorted { $0.key < $1.key }.map(\.value)
        }
        for member in members { member.dispose() }
    }
}
