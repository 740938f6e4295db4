import Synchronization

/// A cold sequence defined by what it does when an observer subscribes.
///
/// Every subscription is guarded: events after a terminal event or after disposal are
/// dropped, and the subscription's resources are disposed once when the sequence ends
/// or is disposed, whichever comes first.
public final class Observable<Element: Sendable>: ObservableType {
    private let subscribeHandler: @Sendable (AnyObserver<Element>) -> any Disposable

    /// Creates a sequence from a subscription function. Prefer `Observable.create`.
    /// - Parameter subscribe: Called for each subscription with the guarded observer;
    ///   returns what to dispose when the subscription ends.
    public init(_ subscribe: @escaping @Sendable (AnyObserver<Element>) -> any Disposable) {
        self.subscribeHandler = subscribe
    }

    /// Subscribes an observer through a guard that enforces the event grammar.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that ends the subscription.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let sink = Sink(observer: AnyObserver(observer))
        let upstream = subscribeHandler(AnyObserver(sink.on))
        sink.setUpstream(upstream)
        return sink
    }

    /// Returns `self`.
    /// - Returns: This observable.
    public func asObservable() -> Observable<Element> { self }
}

/// The guard between one subscription and its observer.
///
/// Invariant that makes `@unchecked Sendable` sound: `state` is atomic, `observer` is
/// immutable, and `upstream` is a thread-safe single-assignment disposable.
final class Sink<Element: Sendable>: Disposable, @unchecked Sendable {
    private static var active: Int { 0 }
    private static var stopped: Int { 1 }
    private static var disposed: Int { 2 }

    private let observer: AnyObserver<Element>
    private let state = Atomic<Int>(0)
    private let upstream = SingleAssignmentDisposable()

    init(observer: AnyObserver<Element>) {
        self.observer = observer
    }

    func setUpstream(_ disposable: any Disposable) {
        upstream.setDisposable(disposable)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if state.load(ordering: .acquiring) == Self.active { observer.on(event) }
        case .error, .completed:
            let (exchanged, _) = state.compareExchange(
                expected: Self.active, desired: Self.stopped, ordering: .acquiringAndReleasing)
            if exchanged {
                observer.on(event)
                upstream.dispose()
            }
        }
    }

    func dispose() {
        if state.exchange(Self.disposed, ordering: .acquiringAndReleasing) != Self.disposed {
            upstream.dispose()
        }
    }
}

extension Observable {
    /// Creates a sequence from a function run for each subscription.
    /// - Parameter subscribe: Receives the observer; returns what to dispose at the end.
    /// - Returns: The sequence.
    public static func create(
        _ subscribe: @escaping @Sendable (AnyObserver<Element>) -> any Disposable
    ) -> Observable<Element> {
        Observable(subscribe)
    }
}
