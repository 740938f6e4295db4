import Foundation
import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Emits the first element at once, then at most one element per `dueTime`; with
    /// `latest`, the newest element seen during a window is emitted when it ends.
    /// - Parameters:
    ///   - dueTime: The window.
    ///   - latest: Whether to emit the window's newest element at its end.
    ///   - scheduler: Where the clock and timer run.
    /// - Returns: The throttled sequence.
    public func throttle(_ dueTime: Duration, latest: Bool = true, scheduler: any SchedulerType) -> Observable<Element>
    {
        let source = asObservable()
        let window = dueTime.seconds
        return Observable { observer in
            let delivery = SerialDelivery<Event<Element>>()
            let forward: @Sendable (Event<Element>) -> Void = { delivery.enqueue($0, observer.on) }
            let state = Locked<(lastEmit: Date?, pending: Element?, timerArmed: Bool)>((nil, nil, false))
            let timer = SerialDisposable()
            @Sendable func windowEnded() {
                let due: Element? = state.withLock { state in
                    state.timerArmed = false
                    guard let element = state.pending else { return nil }
                    state.pending = nil
                    state.lastEmit = scheduler.now
                    return element
                }
                if let due {
                    forward(.next(due))
                    state.withLock { $0.timerArmed = true }
                    timer.disposable = scheduler.schedule(after: dueTime) { windowEnded() }
                }
            }
            let subscription = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        let now = scheduler.now
                        let step: ThrottleStep = state.withLock { state in
                            if let last = state.lastEmit, now.timeIntervalSince(last) < window {
                                if latest { state.pending = element }
                                if state.timerArmed { return .hold }
                                state.timerArmed = true
                                return .arm(window - now.timeIntervalSince(last))
                            }
                            state.lastEmit = now
                            return .emit
                        }
                        switch step {
                        case .emit: forward(event)
                        case .arm(let remaining):
                            timer.disposable = scheduler.schedule(after: .nanoseconds(Int64(remaining * 1e9))) {
                                windowEnded()
                            }
                        case .hold: break
                        }
                    case .error:
                        timer.dispose()
                        forward(event)
                    case .completed:
                        timer.dispose()
                        let last = state.withLock { state -> Element? in
                            defer { state.pending = nil }
                            return state.pending
                        }
                        if let last { forward(.next(last)) }
                        forward(.completed)
                    }
                })
            return Disposables.create(subscription, timer)
        }
    }
}

/// What `throttle` does with an element.
private enum ThrottleStep {
    case emit
    case arm(Double)
    case hold
}
