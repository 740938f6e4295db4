import Synchronization

/// A disposable that is assigned once, possibly after it was disposed (then the
/// assigned one is disposed at once). The inner disposable is disposed at most once.
///
/// Lock-free: one atomic word of flags orders the two operations. Every subscription
/// has one, so it costs one allocation and no mutex (the version with a lock took three
/// allocations and two lock round trips per subscription).
///
/// `@unchecked Sendable` invariant: `inner` is written by `setDisposable` before it sets
/// `assigned` (release) and read by exactly one of `dispose` (which saw `assigned`,
/// acquire) or `setDisposable` (which saw `disposed`); the flags decide which, once.
public final class SingleAssignmentDisposable: Disposable, @unchecked Sendable {
    private static var assigned: Int { 1 }
    private static var disposed: Int { 2 }

    private let flags = Atomic<Int>(0)
    private var inner: (any Disposable)?

    /// Creates an unassigned disposable.
    public init() {}

    /// Whether it has been disposed.
    public var isDisposed: Bool { flags.load(ordering: .acquiring) & Self.disposed != 0 }

    /// Assigns the inner disposable. A second assignment is a programming error and is
    /// ignored (the extra disposable is disposed).
    /// - Parameter disposable: The disposable to hold.
    public func setDisposable(_ disposable: any Disposable) {
        if flags.load(ordering: .acquiring) & Self.assigned != 0 {
            disposable.dispose()
            return
        }
        inner = disposable
        let before = flags.bitwiseOr(Self.assigned, ordering: .acquiringAndReleasing).oldValue
        if before & Self.disposed != 0 {
            // Disposed before it was assigned: `dispose` left the inner one to us.
            inner = nil
            disposable.dispose()
        }
    }

    /// Disposes the inner disposable (now, or when it is assigned).
    public func dispose() {
        let before = flags.bitwiseOr(Self.disposed, ordering: .acquiringAndReleasing).oldValue
        guard before & Self.disposed == 0, before & Self.assigned != 0 else { return }
        let taken = inner
        inner = nil
        taken?.dispose()
    }
}
