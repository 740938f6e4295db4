import RemoteModalLocking
import Synchronization

/// A resource or subscription that can be released. ``dispose()`` is idempotent and safe
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

    /// A disposable that disposes both, first `first`, once.
    /// - Parameters:
    ///   - first: Disposed first.
    ///   - second: Disposed second.
    /// - Returns: The combined disposable.
    public static func create(_ first: any Disposable, _ second: any Disposable) -> any Disposable {
        BinaryDisposable(first, second)
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
///
/// Lock-free: the thread that flips `fired` is the only one that touches `action` after
/// `init`, so it can take the closure out and release it (what it captured may hold
/// this disposable) without a lock. One allocation besides the closure's context.
///
/// `@unchecked Sendable` invariant: `action` is written by `init` and then read and
/// cleared only by the one `dispose()` that exchanged `fired` from `false`.
final class AnonymousDisposable: Disposable, @unchecked Sendable {
    private let fired = Atomic<Bool>(false)
    private var action: (@Sendable () -> Void)?

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    func dispose() {
        guard !fired.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let taken = action
        action = nil
        taken?()
    }
}

/// Two disposables disposed together, in order, once: the common
/// `Disposables.create(a, b)` without a composite's keyed storage.
///
/// `@unchecked Sendable` invariant: `first` and `second` are written by `init` and then
/// read and cleared only by the one ``dispose()`` that exchanged `disposed` from `false`.
final class BinaryDisposable: Disposable, @unchecked Sendable {
    private let disposed = Atomic<Bool>(false)
    private var first: (any Disposable)?
    private var second: (any Disposable)?

    init(_ first: any Disposable, _ second: any Disposable) {
        self.first = first
        self.second = second
    }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (taken1, taken2) = (first, second)
        (first, second) = (nil, nil)
        taken1?.dispose()
        taken2?.dispose()
    }
}

/// A disposable that records whether it was disposed.
public final class BooleanDisposable: Disposable, Sendable {
    private let flag = Atomic<Bool>(false)

    /// Creates an undisposed disposable.
    public init() {}

    /// Whether ``dispose()`` has been called.
    public var isDisposed: Bool { flag.load(ordering: .acquiring) }

    /// Marks the disposable as disposed.
    public func dispose() { flag.store(true, ordering: .releasing) }
}
