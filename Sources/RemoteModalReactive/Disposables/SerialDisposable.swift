import RemoteModalLocking
import Synchronization

/// Holds one disposable at a time: setting a new one disposes the previous one.
/// After ``dispose()``, any disposable set is disposed at once.
public final class SerialDisposable: Disposable, Sendable {
    private struct State {
        var current: (any Disposable)?
        var disposed = false
    }

    private let state = Locked(State())

    /// Creates an empty serial disposable.
    public init() {}

    /// Whether it has been disposed.
    public var isDisposed: Bool { state.withLock { $0.disposed } }

    /// The current disposable. Setting it disposes the previous one.
    public var disposable: (any Disposable)? {
        get { state.withLock { $0.current } }
        set {
            let (old, disposeNew): ((any Disposable)?, Bool) = state.withLock { state in
                if state.disposed { return (nil, true) }
                defer { state.current = newValue }
                return (state.current, false)
            }
            old?.dispose()
            if disposeNew { newValue?.dispose() }
        }
    }

    /// Disposes the current disposable and every later one.
    public func dispose() {
        let current: (any Disposable)? = state.withLock { state in
            guard !state.disposed else { return nil }
            state.disposed = true
            defer { state.current = nil }
            return state.current
        }
        current?.dispose()
    }
}
