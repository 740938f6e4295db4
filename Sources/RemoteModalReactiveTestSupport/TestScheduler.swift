import Foundation
import RemoteModalLocking
import RemoteModalReactive
import Synchronization

/// A virtual-time scheduler: actions run in time order when the test starts or advances
/// the clock, so time-based operators are tested deterministically and instantly.
///
/// One tick is ``resolution`` seconds (default 1): `delay(.seconds(5))` waits 5 ticks.
public final class TestScheduler: SchedulerType {
    private struct Item {
        let time: TestTime
        let order: UInt64
        let action: @Sendable () -> Void
        let cancel: BooleanDisposable
    }

    private struct State {
        var clock: TestTime
        var items: [Item] = []
        var nextOrder: UInt64 = 0
    }

    private let state: Locked<State>
    /// Seconds per tick.
    public let resolution: Double

    /// Creates a scheduler.
    /// - Parameters:
    ///   - initialClock: The starting virtual time.
    ///   - resolution: Seconds per tick.
    public init(initialClock: TestTime = 0, resolution: Double = 1) {
        self.state = Locked(State(clock: initialClock))
        self.resolution = resolution
    }

    /// The current virtual time.
    public var clock: TestTime { state.withLock { $0.clock } }

    /// The current virtual time as a date (`clock * resolution` seconds after 1970).
    public var now: Date { Date(timeIntervalSince1970: Double(clock) * resolution) }

    /// Schedules an action at the current virtual time.
    /// - Parameter action: The work.
    /// - Returns: A disposable that cancels it.
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        scheduleAt(clock, action)
    }

    /// Schedules an action after a delay, rounded to whole ticks.
    /// - Parameters:
    ///   - dueTime: The delay.
    ///   - action: The work.
    /// - Returns: A disposable that cancels it.
    public func schedule(after dueTime: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let ticks = max(0, Int((dueTime.seconds / resolution).rounded()))
        return scheduleAt(clock + ticks, action)
    }

    /// Schedules an action at an absolute virtual time.
    /// - Parameters:
    ///   - time: When to run it.
    ///   - action: The work.
    /// - Returns: A disposable that cancels it.
    @discardableResult
    public func scheduleAt(_ time: TestTime, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let cancel = BooleanDisposable()
        state.withLock { state in
            state.items.append(Item(time: time, order: state.nextOrder, action: action, cancel: cancel))
            state.nextOrder += 1
        }
        return cancel
    }

    /// Runs every scheduled action, in time order, until none is left.
    public func start() {
        while runNext(upTo: .max) {}
    }

    /// Whether an action not cancelled is scheduled at or before a time.
    /// - Parameter time: The time.
    /// - Returns: `true` when `advanceTo(time)` would run something.
    public func hasActions(upTo time: TestTime) -> Bool {
        state.withLock { state in state.items.contains { $0.time <= time && !$0.cancel.isDisposed } }
    }

    /// Runs the actions due up to a time, then sets the clock to it.
    /// - Parameter time: The new virtual time.
    public func advanceTo(_ time: TestTime) {
        while runNext(upTo: time) {}
        state.withLock { $0.clock = max($0.clock, time) }
    }

    private func runNext(upTo limit: TestTime) -> Bool {
        let item: Item? = state.withLock { state in
            guard
                let index = state.items.indices.min(by: { lhs, rhs in
                    let (a, b) = (state.items[lhs], state.items[rhs])
                    return (a.time, a.order) < (b.time, b.order)
                })
            else { return nil }
            guard state.items[index].time <= limit else { return nil }
            let item = state.items.remove(at: index)
            state.clock = max(state.clock, item.time)
            return item
        }
        guard let item else { return false }
        if !item.cancel.isDisposed { item.action() }
        return true
    }

    /// Creates an observer that records what it receives with the virtual time.
    /// - Parameter type: The element type.
    /// - Returns: The recording observer.
    public func createObserver<Element: Sendable>(_ type: Element.Type = Element.self) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// Creates a hot observable: its events fire at their absolute times, whoever listens.
    /// - Parameter events: The events with their times.
    /// - Returns: The observable, which records its subscriptions.
    public func createHotObservable<Element: Sendable>(_ events: [Recorded<Event<Element>>])
        -> TestableObservable<Element>
    {
        TestableObservable(scheduler: self, events: events, hot: true)
    }

    /// Creates a cold observable: its events fire at their times relative to each subscription.
    /// - Parameter events: The events with their relative times.
    /// - Returns: The observable, which records its subscriptions.
    public func createColdObservable<Element: Sendable>(_ events: [Recorded<Event<Element>>])
        -> TestableObservable<Element>
    {
        TestableObservable(scheduler: self, events: events, hot: false)
    }

    /// Runs the RxTest-style life of a sequence: created at `created`, subscribed at
    /// `subscribed`, disposed at `disposed`; returns what the observer recorded.
    /// - Parameters:
    ///   - created: When the factory runs.
    ///   - subscribed: When the observer subscribes.
    ///   - disposed: When the subscription is disposed.
    ///   - create: Builds the sequence under test.
    /// - Returns: The recording observer.
    public func start<Element: Sendable>(
        created: TestTime = 100, subscribed: TestTime = 200, disposed: TestTime = 1000,
        _ create: @escaping @Sendable () -> Observable<Element>
    ) -> TestableObserver<Element> {
        let observer = createObserver(Element.self)
        let box = Locked<(source: Observable<Element>?, subscription: (any Disposable)?)>((nil, nil))
        scheduleAt(created) { box.withLock { $0.source = create() } }
        scheduleAt(subscribed) {
            let source = box.withLock { $0.source }
            let subscription = source?.subscribe(observer)
            box.withLock { $0.subscription = subscription }
        }
        scheduleAt(disposed) { box.withLock { $0.subscription }?.dispose() }
        start()
        return observer
    }
}
