import RemoteModalLocking
import Synchronization

/// Collects disposables and disposes them all when the bag is deallocated.
public final class DisposeBag: Sendable {
    private struct State {
        var disposables: [any Disposable] = []
        var disposed = false
    }

    private let state = Locked(State())

    /// Creates an empty bag.
    public init() {}

    /// Adds a disposable; if the bag is already disposed, disposes it at once.
    /// - Parameter disposable: The disposable to keep.
    public func insert(_ disposable: any Disposable) {
        let accepted = state.withLock { state in
            guard !state.disposed else { return false }
            state.disposables.append(disposable)
            return true
        }
        if !accepted { disposable.dispose() }
    }

    /// Disposes everything in the bag now. Later insertions are disposed at once.
    public func dispose() {
        let disposables: [any Disposable] = state.withLock { state in
            state.disposed = true
            defer { state.disposables = [] }
            return state.disposables
        }
        for disposable in disposables { disposable.dispose() }
    }

    deinit {
        dispose()
    }
}

extension Disposable {
    /// Adds this disposable to a bag.
    /// - Parameter bag: The bag that will dispose it.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}
