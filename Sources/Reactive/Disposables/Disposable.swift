import Locking
import Synchronization

/// A resource or subscription that can be released. `dispose()` is idempotent and safe
/// to call from any thread.
public protocol Disposable: Sendable {
    /// Releases the resource. Calling it again does nothing.
    func dispose()
}

/// Factory functions for common disposables.
public enum Disposables {
    /// A disposable that does nothing.
    /// - Returns: A no-op disposable.
    public static func create() -> any Disposable { NopDisposable() }

    /// A disposable that runs an action once, on the first `dispose()`.
    /// - Parameter action: The action to run.
    /// - Returns: The disposable.
    public static func create(with action: @escaping @Sendable () -> Void) -> any Disposable {
        AnonymousDisposable(action)
    }

    /// A disposable that disposes all the given ones together.
    /// - Parameter disposables: The disposables to dispose.
    /// - Returns: The combined disposable.
    public static func create(_ disposables: any Disposable...) -> any Disposable {
        CompositeDisposable(disposables)
    }

    /// A disposable that disposes all the given ones together.
    /// - Parameter disposables: The disposables to dispose.
    /// - Returns: The combined disposable.
    public static func create(_ disposables: [any Disposable]) -> any Disposable {
        CompositeDisposable(disposables)
    }
}

struct NopDisposable: Disposable {
    func dispose() {}
}

/// Runs its action at most once.
final class AnonymousDisposable: Disposable, Sendable {
    // Boxed: a closure kept directly in a Locked is re-wrapped on every access (see Boxed).
    private let action: Locked<Boxed<@Sendable () -> Void>?>

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = Locked(Boxed(action))
    }

    func dispose() {
        let action = self.action.withLock { action in
            defer { action = nil }
            return action
        }
        action?.value()
    }
}

/// A disposable that records whether it was disposed.
public final class BooleanDisposable: Disposable, Sendable {
    private let flag = Atomic<Bool>(false)

    /// Creates an undisposed disposable.
    public init() {}

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { flag.load(ordering: .acquiring) }

    /// Marks the disposable as disposed.
    public func dispose() { flag.store(true, ordering: .releasing) }
}
