import Foundation
import RemoteModalReactive
import RemoteModalTransport

/// A scheduler that runs actions on a host executor, and delayed ones after a clock's delay
/// (then on the executor): how flows observe on the host's thread.
public struct HostExecutorScheduler: SchedulerType {
    let executor: any HostExecutor
    let clock: any SchedulerType

    /// The clock's time.
    public var now: Date { clock.now }

    /// Runs the action on the executor.
    /// - Parameter action: The work.
    /// - Returns: A disposable that cancels it if it has not started.
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        let cancel = BooleanDisposable()
        executor.execute { if !cancel.isDisposed { action() } }
        return cancel
    }

    /// Runs the action on the executor after a delay.
    /// - Parameters:
    ///   - dueTime: How long to wait.
    ///   - action: The work.
    /// - Returns: A disposable that cancels it if it has not started.
    public func schedule(after dueTime: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let cancel = BooleanDisposable()
        let timer = clock.schedule(after: dueTime) { [executor] in
            executor.execute { if !cancel.isDisposed { action() } }
        }
        return Disposables.create {
            cancel.dispose()
            timer.dispose()
        }
    }
}
