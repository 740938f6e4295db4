import RemoteModalLocking
import RemoteModalReactive
import Synchronization

/// An observable that replays scripted events on a ``TestScheduler`` and records when it
/// was subscribed and unsubscribed.
public final class TestableObservable<Element: Sendable>: ObservableType {
    private struct State {
        var subscriptions: [Subscription] = []
        var observers: [Int: AnyObserver<Element>] = [:]
    }

    private let scheduler: TestScheduler
    private let events: [Recorded<Event<Element>>]
    private let hot: Bool
    private let state = Locked(State())

    init(scheduler: TestScheduler, events: [Recorded<Event<Element>>], hot: Bool) {
        self.scheduler = scheduler
        self.events = events
        self.hot = hot
        if hot {
            for recorded in events {
                scheduler.scheduleAt(recorded.time) { [self] in
                    let observers = state.withLock { $0.observers.sorted { $0.key < $1.key }.map(\.value) }
                    for observer in observers { observer.on(recorded.value) }
                }
            }
        }
    }

    /// Every subscription so far, with its disposal time (`Int.max` while live).
    public var subscriptions: [Subscription] { state.withLock { $0.subscriptions } }

    /// Subscribes an observer and records the time.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that records the unsubscription time.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let observer = AnyObserver(observer)
        let start = scheduler.clock
        let index = state.withLock { state in
            state.subscriptions.append(Subscription(start))
            state.observers[state.subscriptions.count - 1] = observer
            return state.subscriptions.count - 1
        }
        let scheduled = CompositeDisposable()
        if !hot {
            for recorded in events {
                scheduled.insert(scheduler.scheduleAt(start + recorded.time) { observer.on(recorded.value) })
            }
        }
        return Disposables.create { [self] in
            scheduled.dispose()
            state.withLock { state in
                state.observers[index] = nil
                state.subscriptions[index] = Subscription(start, scheduler.clock)
            }
        }
    }
}
