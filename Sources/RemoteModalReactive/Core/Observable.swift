import Synchronization

/// A cold sequence defined by what it does when an observer subscribes.
///
/// Every subscription is guarded: events after a terminal event or after disposal are
/// dropped, and the subscription's resources are disposed once when the sequence ends
/// or is disposed, whichever comes first.
public final class Observable<Element: Sendable>: ObservableType {
    let subscribeHandler: @Sendable (AnyObserver<Element>) -> any Disposable

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
/// One atomic word of flags holds both the event grammar (stopped, disposed) and the
/// single assignment of the upstream disposable, so a subscription costs this one object
/// (the upstream was a `SingleAssignmentDisposable` of its own before).
///
/// Invariant that makes `@unchecked Sendable` sound: `observer` is immutable; `upstream`
/// is written by `setUpstream` before it sets `assigned` (release) and afterwards read
/// and cleared by exactly one of `setUpstream` (which saw `released`) or
/// `releaseUpstream` (which set `released` and saw `assigned`, acquire). Its members are
/// internal, not private, so that cross-module optimization can specialize it (issue 31).
final class Sink<Element: Sendable>: Disposable, @unchecked Sendable {
    static var assigned: Int { 1 }
    static var released: Int { 2 }
    static var stopped: Int { 4 }
    static var disposed: Int { 8 }

    let observer: AnyObserver<Element>
    let flags = Atomic<Int>(0)
    var upstream: (any Disposable)?

    init(observer: AnyObserver<Element>) {
        self.observer = observer
    }

    func setUpstream(_ disposable: any Disposable) {
        upstream = disposable
        let before = flags.bitwiseOr(Self.assigned, ordering: .acquiringAndReleasing).oldValue
        if before & Self.released != 0 {
            // Ended before `subscribe` returned: the release left the upstream to us.
            upstream = nil
            disposable.dispose()
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if flags.load(ordering: .acquiring) & (Self.stopped | Self.disposed) == 0 { observer.on(event) }
        case .error, .completed:
            var current = flags.load(ordering: .acquiring)
            while current & (Self.stopped | Self.disposed) == 0 {
                let (exchanged, original) = flags.compareExchange(
                    expected: current, desired: current | Self.stopped, ordering: .acquiringAndReleasing)
                if exchanged {
                    observer.on(event)
                    releaseUpstream()
                    return
                }
                current = original
            }
        }
    }

    func dispose() {
        let before = flags.bitwiseOr(Self.disposed, ordering: .acquiringAndReleasing).oldValue
        if before & Self.disposed == 0 { releaseUpstream() }
    }

    /// Disposes the upstream once: now if it is assigned, else when it is.
    func releaseUpstream() {
        let before = flags.bitwiseOr(Self.released, ordering: .acquiringAndReleasing).oldValue
        guard before & Self.released == 0, before & Self.assigned != 0 else { return }
        let taken = upstream
        upstream = nil
        taken?.dispose()
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
