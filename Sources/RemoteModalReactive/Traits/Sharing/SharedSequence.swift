/// How a ``SharedSequence`` shares its single subscription.
public protocol SharingStrategy: Sendable {
    /// How many past elements a new subscriber receives (a ``Driver`` replays 1, a
    /// ``Signal`` 0).
    static var replay: Int { get }
}

/// The strategy of ``Driver``: state. Replays the latest element to new subscribers.
public enum DriverSharingStrategy: SharingStrategy {
    /// One element: the current state.
    public static var replay: Int { 1 }
}

/// The strategy of ``Signal``: events. New subscribers receive only later elements.
public enum SignalSharingStrategy: SharingStrategy {
    /// None.
    public static var replay: Int { 0 }
}

/// A sequence for driving what people see: it never fails, its subscribers share one
/// subscription to the source, and it delivers on one scheduler.
///
/// Built from an observable with `asDriver(...)` / `asSignal(...)`, which say what to do
/// with the source's error; the sharing holds while at least one subscriber is connected
/// (`share(replay:scope: .whileConnected)`).
public struct SharedSequence<Strategy: SharingStrategy, Element: Sendable>: ObservableType {
    private let source: Observable<Element>
    /// The scheduler events are delivered on; operators keep it.
    public let scheduler: any ImmediateSchedulerType

    /// Wraps a source that never fails and already delivers on `scheduler`, and shares it.
    init(unchecked source: Observable<Element>, scheduler: any ImmediateSchedulerType) {
        self.source = source.share(replay: Strategy.replay, scope: .whileConnected)
        self.scheduler = scheduler
    }

    /// Subscribes an observer to the shared events.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        source.subscribe(observer)
    }

    /// The shared sequence as an observable.
    /// - Returns: The observable.
    public func asObservable() -> Observable<Element> { source }

    /// A sequence of one element, delivered on ``scheduler``, then completion.
    /// - Parameters:
    ///   - element: The element.
    ///   - scheduler: Where it is delivered (default: ``SharingScheduler/default``).
    /// - Returns: The sequence.
    public static func just(
        _ element: Element, scheduler: any ImmediateSchedulerType = SharingScheduler.default
    ) -> SharedSequence {
        SharedSequence(unchecked: Observable.just(element).observe(on: scheduler), scheduler: scheduler)
    }

    /// A sequence that completes at once, on ``scheduler``.
    /// - Parameter scheduler: Where completion is delivered.
    /// - Returns: The sequence.
    public static func empty(scheduler: any ImmediateSchedulerType = SharingScheduler.default) -> SharedSequence {
        SharedSequence(unchecked: Observable.empty().observe(on: scheduler), scheduler: scheduler)
    }

    /// A sequence that never emits.
    /// - Parameter scheduler: The scheduler operators keep.
    /// - Returns: The sequence.
    public static func never(scheduler: any ImmediateSchedulerType = SharingScheduler.default) -> SharedSequence {
        SharedSequence(unchecked: Observable.never(), scheduler: scheduler)
    }
}

/// State for the screen: never fails, shared, replays the latest element, delivered on
/// one scheduler (RxCocoa's ``Driver``).
public typealias Driver<Element: Sendable> = SharedSequence<DriverSharingStrategy, Element>

/// Events for the screen: never fails, shared, no replay, delivered on one scheduler
/// (RxCocoa's ``Signal``).
public typealias Signal<Element: Sendable> = SharedSequence<SignalSharingStrategy, Element>
