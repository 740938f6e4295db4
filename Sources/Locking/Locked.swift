#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a `pthread_mutex_t`.
///
/// NB: used instead of `Synchronization.Mutex` because on Linux the standard library's
/// futex-based mutex is invisible to ThreadSanitizer (its lock and unlock are not
/// instrumented), which then reports every access it guards as a race. pthread mutexes are
/// intercepted by the sanitizer, so the whole suite can run clean under it.
///
/// `@unchecked Sendable` invariant: `value` is read and written only between
/// `pthread_mutex_lock` and `pthread_mutex_unlock` on `mutex`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock around an initial value.
    /// - Parameter value: The initial value.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: Reads or changes the value; must not call back into this lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        lock()
        defer { unlock() }
        return try body(&storage)
    }

    @usableFromInline
    var storage: Value {
        _read { yield value }
        _modify { yield &value }
    }

    @usableFromInline
    func lock() { pthread_mutex_lock(mutex) }

    @usableFromInline
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// A value behind a class reference, for keeping closures in a `Locked`.
///
/// NB: a `Locked` whose value is a function type, or a tuple or optional holding one, must
/// reabstract the function on every `withLock` (the generic storage and the caller's
/// concrete type represent functions differently), and the debug and some release builds
/// wrap it in one more thunk each time without freeing the last: memory grew with every
/// access and calls went through ever longer chains of thunks. A class reference needs no
/// reabstraction, so store `Boxed` closures instead.
public final class Boxed<Value: Sendable>: Sendable {
    /// The value.
    public let value: Value

    /// Boxes a value.
    /// - Parameter value: The value.
    public init(_ value: Value) {
        self.value = value
    }
}
