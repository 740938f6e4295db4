import Dispatch
import Foundation

/// Runs actions one at a time, in order, on a serial `DispatchQueue`.
public struct SerialDispatchQueueScheduler: SchedulerType {
    /// The queue the actions run on.
    public let queue: DispatchQueue

    /// Wraps an existing serial queue.
    /// - Parameter queue: A serial queue.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Creates a scheduler on a new serial queue.
    /// - Parameters:
    ///   - label: The queue's label.
    ///   - qos: The queue's quality of service.
    public init(label: String, qos: DispatchQoS = .default) {
        self.queue = DispatchQueue(label: label, qos: qos)
    }

    /// The wall-clock time.
    public var now: Date { Date() }

    /// Enqueues the action.
    /// - Parameter action: The work.
    /// - Returns: A disposable that cancels it if it has not started.
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        let cancel = BooleanDisposable()
        queue.async {
            if !cancel.isDisposed { action() }
        }
        return cancel
    }

    /// Enqueues the action after a delay.
    /// - Parameters:
    ///   - dueTime: How long to wait.
    ///   - action: The work.
    /// - Returns: A disposable that cancels it if it has not started.
    public func schedule(after dueTime: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let cancel = BooleanDisposable()
        let nanoseconds = max(0, Int(dueTime.seconds * 1e9))
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            if !cancel.isDisposed { action() }
        }
        return cancel
    }
}
