import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Fails with ``RxError/timeout`` (or switches to `other`) when no element arrives
    /// within `dueTime` of the subscription or of the previous element.
    /// - Parameters:
    ///   - dueTime: The longest allowed silence.
    ///   - other: The sequence to continue with instead of failing.
    ///   - scheduler: Where the timer runs.
    /// - Returns: The guarded sequence.
    public func timeout(
        _ dueTime: Duration, other: Observable<Element>? = nil, scheduler: any SchedulerType
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let delivery = SerialDelivery<Event<Element>>()
            let forward: @Sendable (Event<Element>) -> Void = { delivery.enqueue($0, observer.on) }
            let generation = Locked<UInt64?>(0)
            let timer = SerialDisposable()
            let sourceSubscription = SerialDisposable()
            @Sendable func arm(_ id: UInt64) {
                timer.disposable = scheduler.schedule(after: dueTime) {
                    let fired = generation.withLock { current -> Bool in
                        guard current == id else { return false }
                        current = nil
                        return true
                    }
                    guard fired else { return }
                    if let other {
                        sourceSubscription.disposable = other.subscribe(AnyObserver(forward))
                    } else {
                        forward(.error(RxError.timeout))
                    }
                }
            }
            arm(0)
            sourceSubscription.disposable = source.subscribe(
                AnyObserver { event in
                    let next: UInt64? = generation.withLock { current in
                        guard let id = current else { return nil }
                        current = id + 1
                        return id + 1
                    }
                    guard let next else { return }
                    if event.isStopEvent { timer.dispose() } else { arm(next) }
                    forward(event)
                })
            return Disposables.create(timer, sourceSubscription)
        }
    }
}
