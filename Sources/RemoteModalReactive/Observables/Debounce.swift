import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Emits an element only after `dueTime` passes without a newer one; on completion
    /// the pending element, if any, is emitted first.
    /// - Parameters:
    ///   - dueTime: The quiet period.
    ///   - scheduler: Where the timer runs.
    /// - Returns: The debounced sequence.
    public func debounce(_ dueTime: Duration, scheduler: any SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let delivery = SerialDelivery<Event<Element>>()
            let forward: @Sendable (Event<Element>) -> Void = { delivery.enqueue($0, observer.on) }
            let pending = Locked<(id: UInt64, element: Element?)>((0, nil))
            let timer = SerialDisposable()
            let subscription = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        let id = pending.withLock { state -> UInt64 in
                            state = (state.id + 1, element)
                            return state.id
                        }
                        timer.disposable = scheduler.schedule(after: dueTime) {
                            let due: Element? = pending.withLock { state in
                                guard state.id == id, let element = state.element else { return nil }
                                state.element = nil
                                return element
                            }
                            if let due { forward(.next(due)) }
                        }
                    case .error:
                        timer.dispose()
                        forward(event)
                    case .completed:
                        timer.dispose()
                        let last = pending.withLock { state -> Element? in
                            defer { state.element = nil }
                            return state.element
                        }
                        if let last { forward(.next(last)) }
                        forward(.completed)
                    }
                })
            return Disposables.create(subscription, timer)
        }
    }
}
