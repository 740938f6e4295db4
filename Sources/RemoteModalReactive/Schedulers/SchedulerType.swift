import Foundation

/// Runs work now or soon, in the scheduler's context.
public protocol ImmediateSchedulerType: Sendable {
    /// Schedules an action to run as soon as possible.
    /// - Parameter action: The work.
    /// - Returns: A disposable that cancels the action if it has not run yet.
    func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable
}

/// A scheduler with a clock: it can also run work after a delay.
public protocol SchedulerType: ImmediateSchedulerType {
    /// The scheduler's current time (virtual time on a test scheduler).
    var now: Date { get }

    /// Schedules an action after a delay.
    /// - Parameters:
    ///   - dueTime: How long to wait.
    ///   - action: The work.
    /// - Returns: A disposable that cancels the action if it has not run yet.
    func schedule(after dueTime: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
