import RemoteModalLocking

extension Observable where Element == Int {
    /// Emits 0, 1, 2, ... every `period`, the first one `period` after subscription; never
    /// completes.
    /// - Parameters:
    ///   - period: The time between elements.
    ///   - scheduler: Where the timer runs and the elements are delivered.
    /// - Returns: The counting sequence.
    public static func interval(_ period: Duration, scheduler: any SchedulerType) -> Observable<Int> {
        timer(period, period: period, scheduler: scheduler)
    }

    /// Emits 0 after `dueTime`, then completes, or with a `period`, keeps emitting 1, 2, ...
    /// every `period` after that.
    /// - Parameters:
    ///   - dueTime: The delay before the first element.
    ///   - period: The time between later elements (`nil`: only one element, then completed).
    ///   - scheduler: Where the timer runs and the elements are delivered.
    /// - Returns: The timer sequence.
    public static func timer(
        _ dueTime: Duration, period: Duration? = nil, scheduler: any SchedulerType
    ) -> Observable<Int> {
        Observable { observer in
            let pending = SerialDisposable()
            let counter = Locked(0)
            @Sendable func tick(after delay: Duration) {
                pending.disposable = scheduler.schedule(after: delay) {
                    guard !pending.isDisposed else { return }
                    let value = counter.withLock { count -> Int in
                        defer { count += 1 }
                        return count
                    }
                    observer.onNext(value)
                    if let period {
                        tick(after: period)
                    } else {
                        observer.onCompleted()
                    }
                }
            }
            tick(after: dueTime)
            return pending
        }
    }
}
