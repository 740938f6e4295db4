import RemoteModalLocking
import RemoteModalReactive
import Synchronization

/// An observer that records each event with the virtual time it arrived.
public final class TestableObserver<Element: Sendable>: ObserverType {
    private let scheduler: TestScheduler
    private let recorded = Locked<[Recorded<Event<Element>>]>([])

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// The events received so far, with their times.
    public var events: [Recorded<Event<Element>>] { recorded.withLock { $0 } }

    /// The elements of the `next` events received so far.
    public var elements: [Element] { events.compactMap { $0.value.element } }

    /// Records an event.
    /// - Parameter event: The event.
    public func on(_ event: Event<Element>) {
        let time = scheduler.clock
        recorded.withLock { $0.append(Recorded(time: time, value: event)) }
    }
}
