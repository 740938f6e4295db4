/// Replays the last elements it received (all, or up to a buffer size) to each new
/// observer, then the terminal event if there was one.
public final class ReplaySubject<Element: Sendable>: ObservableType, ObserverType {
    private let core: SubjectCore<Element>

    private init(limit: Int?) {
        core = SubjectCore(memory: .buffer(limit: limit))
    }

    /// Creates a subject that replays the last `bufferSize` elements.
    /// - Parameter bufferSize: How many elements to keep (at least 0).
    /// - Returns: The subject.
    public static func create(bufferSize: Int) -> ReplaySubject<Element> {
        ReplaySubject(limit: max(0, bufferSize))
    }

    /// Creates a subject that replays every element it ever received.
    /// - Returns: The subject.
    public static func createUnbound() -> ReplaySubject<Element> {
        ReplaySubject(limit: nil)
    }

    /// Whether anyone is subscribed.
    public var hasObservers: Bool { core.hasObservers }

    /// Sends an event.
    /// - Parameter event: The event.
    public func on(_ event: Event<Element>) { core.on(event) }

    /// Subscribes an observer: it receives the buffer, then later events.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        core.subscribe(AnyObserver(observer))
    }
}
