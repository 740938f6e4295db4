import Locking
import Synchronization

/// A disposable that is assigned once, possibly after it was disposed (then the
/// assigned one is disposed at once). The inner disposable is disposed at most once.
public final class SingleAssignmentDisposable: Disposable, Sendable {
    private struct State {
        var inner: (any Disposable)?
        var assigned = false
        var disposed = false
    }

    private let state = Locked(State())

    /// Creates an unassigned disposable.
    public init() {}

    /// Whether it has been disposed.
    public var isDisposed: Bool { state.withLock { $0.disposed } }

    /// Assigns the inner disposable. A second assignment is a programming error and is
    /// ignored (the extra disposable is disposed).
    /// - Parameter disposable: The disposable to hold.
    public func setDisposable(_ disposable: any Disposable) {
        let disposeNow: Bool = state.withLock { state in
            if state.assigned || state.disposed {
                state.assigned = true
                return true
            }
            state.assigned = true
            state.inner = disposable
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// Disposes the inner disposable (now, or when it is assigned).
    public func dispose() {
        let inner: (any Disposable)? = state.withLock { state in
            guard !state.disposed else { return nil }
            state.disposed = true
            defer { state.inner = nil }
            return state.inner
        }
        inner?.dispose()
    }
}
