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
    ///
    /// A timer source, not `asyncAfter`: disposing it releases the action, and what the
    /// action holds, at once. With `asyncAfter` a cancelled action stayed in the queue
    /// until its time (a host's retention timers kept evicted sessions alive for the whole
    /// retention period).
    /// - Parameters:
    ///   - dueTime: How long to wait.
    ///   - action: The work.
    /// - Returns: A disposable that cancels it if it has not started.
    public func schedule(after dueTime: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let nanoseconds = max(0, Int(dueTime.seconds * 1e9))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds))
        // One shot: cancelled after it fires, which releases the handler (and the timer it
        // refers to: the cycle lasts only until then).
        timer.setEventHandler {
            guard !timer.isCancelled else { return }
            timer.cancel()
            action()
        }
        timer.activate()
        return TimerDisposable(timer)
    }
}

/// Cancels a dispatch timer source (thread-safe; cancelling twice is harmless).
private final class TimerDisposable: Disposable, @unchecked Sendable {
    // `@unchecked Sendable`: the only member is immutable and `cancel` is thread-safe.
    private let timer: any DispatchSourceTimer

    init(_ timer: any DispatchSourceTimer) {
        self.timer = timer
    }

    func dispose() {
        timer.cancel()
    }
}
