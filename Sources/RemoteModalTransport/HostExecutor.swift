import Dispatch
import Foundation

/// Where the host's state lives and its work runs: one thread at a time, in order.
///
/// The real transport's executor is its service loop (`WebSocketTransport.executor`), as a
/// swift-nio event loop is: messages are decoded, host state changes and flows' callbacks
/// run on the thread that does the I/O, with no hop. In-memory tests use a
/// ``DispatchQueueExecutor``.
public protocol HostExecutor: AnyObject, Sendable {
    /// Whether the calling thread is the executor's now.
    var inExecutor: Bool { get }
    /// Runs `work` on the executor soon, after work queued before it.
    /// - Parameter work: The work.
    func execute(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` after the executor has next served I/O: on a service loop, at the end
    /// of a later turn, so that what arrived meanwhile (another client's message) is served
    /// first. How a host spreads a burst of work over turns. Executors without turns run
    /// it as ``execute(_:)`` does.
    /// - Parameter work: The work.
    func executeAfterNextPoll(_ work: @escaping @Sendable () -> Void)
    /// A number that changes at every turn of the executor's loop (0 for executors
    /// without one): work per turn is counted against it.
    var turn: UInt64 { get }
}

extension HostExecutor {
    /// Runs `work` as ``execute(_:)`` does (executors without turns).
    /// - Parameter work: The work.
    public func executeAfterNextPoll(_ work: @escaping @Sendable () -> Void) { execute(work) }

    /// 0: no turns.
    public var turn: UInt64 { 0 }

    /// Traps in debug builds when called off the executor (swift-nio's
    /// `assertInEventLoop`): confinement is checked, not only stated.
    /// - Parameters:
    ///   - file: The caller's file.
    ///   - line: The caller's line.
    public func assertInExecutor(file: StaticString = #fileID, line: UInt = #line) {
        assert(inExecutor, "host state touched off its executor", file: file, line: line)
    }

    /// Runs `body` on the executor and waits for its result; inline when already there.
    /// - Parameter body: The work.
    /// - Returns: What `body` returned.
    public func sync<T>(_ body: () -> T) -> T {
        if inExecutor { return body() }
        return withoutActuallyEscaping(body) { body in
            let box = UncheckedBox<(body: (() -> T)?, result: T?)>((body, nil))
            let done = DispatchSemaphore(value: 0)
            execute {
                box.value.result = box.value.body?()
                // Let go of the borrowed closure before the caller may return.
                box.value.body = nil
                done.signal()
            }
            done.wait()
            return box.value.result!
        }
    }
}

/// A value handed between threads under a happens-before edge the caller provides (a
/// semaphore): `@unchecked Sendable` because that edge, not a lock, orders the accesses.
private final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A host executor on a serial dispatch queue (the in-memory transport's, and any
/// transport without a loop of its own).
public final class DispatchQueueExecutor: HostExecutor {
    /// The queue.
    public let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    /// Creates an executor on a new serial queue.
    /// - Parameter label: The queue's label.
    public init(label: String = "remote-modal.host") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the calling code runs on the queue.
    public var inExecutor: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Enqueues `work`.
    /// - Parameter work: The work.
    public func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
}
