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
/// One heap object: the value is the header of a `ManagedBuffer` and the mutex its one
/// tail-allocated element, whose address stays put for the object's life (a mutex must
/// not move). A copy of a ``Locked`` shares that object, so it behaves like a reference.
///
/// `@unchecked Sendable` invariant: the value is read and written only between
/// `pthread_mutex_lock` and `pthread_mutex_unlock` on the buffer's mutex.
public struct Locked<Value>: @unchecked Sendable {
    @usableFromInline
    let buffer: LockedBuffer<Value>

    /// Creates a lock around an initial value.
    /// - Parameter value: The initial value.
    public init(_ value: Value) {
        buffer = LockedBuffer.make(value)
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: Reads or changes the value; must not call back into this lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        try buffer.withLock(body)
    }
}

/// The storage of a `Locked`: the value as header, one `pthread_mutex_t` as element.
@usableFromInline
final class LockedBuffer<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    static func make(_ value: Value) -> LockedBuffer<Value> {
        let made = create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            return value
        }
        return unsafeDowncast(made, to: LockedBuffer<Value>.self)
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }

    @inlinable
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        try withUnsafeMutablePointers { value, mutex throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// A value behind a class reference, for keeping closures in a ``Locked``.
///
/// NB: a ``Locked`` whose value is a function type, or a tuple or optional holding one, must
/// reabstract the function on every `withLock` (the generic storage and the caller's
/// concrete type represent functions differently), and the debug and some release builds
/// wrap it in one more thunk each time without freeing the last: memory grew with every
/// access and calls went through ever longer chains of thunks. A class reference needs no
/// reabstraction, so store ``Boxed`` closures instead.
public final class Boxed<Value: Sendable>: Sendable {
    /// The value.
    public let value: Value

    /// Boxes a value.
    /// - Parameter value: The value.
    public init(_ value: Value) {
        self.value = value
    }
}
