/// Runs each action synchronously, on the calling thread.
public struct ImmediateScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = ImmediateScheduler()

    /// Creates the scheduler.
    public init() {}

    /// Runs the action now.
    /// - Parameter action: The work.
    /// - Returns: A disposable with nothing left to cancel.
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        action()
        return Disposables.create()
    }
}
