/// Broadcasts each event to the observers subscribed at that moment.
///
/// Events sent from several threads at once are delivered one at a time, in order; an
/// observer that subscribes after the terminal event receives only that event.
public final class PublishSubject<Element: Sendable>: ObservableType, ObserverType {
    private let core = SubjectCore<Element>(memory: .none)

    /// Creates a subject.
    public init() {}

    /// Whether anyone is subscribed.
    public var hasObservers: Bool { core.hasObservers }

    /// Sends an event to the current observers.
    /// - Parameter event: The event.
    public func on(_ event: Event<Element>) { core.on(event) }

    /// Subscribes an observer to future events.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        core.subscribe(AnyObserver(observer))
    }
}
