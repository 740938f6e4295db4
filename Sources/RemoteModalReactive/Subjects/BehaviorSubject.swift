/// Holds a current value: new observers receive it first, then every later event.
public final class BehaviorSubject<Element: Sendable>: ObservableType, ObserverType {
    private let core: SubjectCore<Element>

    /// Creates a subject with an initial value.
    /// - Parameter value: The value new observers receive until the next one is sent.
    public init(value: Element) {
        core = SubjectCore(memory: .latest, initial: [value])
    }

    /// Whether anyone is subscribed.
    public var hasObservers: Bool { core.hasObservers }

    /// The current value.
    /// - Returns: The latest element sent (or the initial one).
    /// - Throws: The error that ended the subject, if it ended with one.
    public func value() throws -> Element {
        if case .error(let error) = core.stopEvent { throw error }
        return core.latest!
    }

    /// Sends an event; a `next` becomes the current value.
    /// - Parameter event: The event.
    public func on(_ event: Event<Element>) { core.on(event) }

    /// Subscribes an observer: it receives the current value, then later events.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        core.subscribe(AnyObserver(observer))
    }
}
