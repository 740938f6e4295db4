/// A ``PublishSubject`` that never terminates: it only accepts elements.
public final class PublishRelay<Element: Sendable>: ObservableType {
    private let subject = PublishSubject<Element>()

    /// Creates a relay.
    public init() {}

    /// Broadcasts an element to the current observers.
    /// - Parameter element: The element.
    public func accept(_ element: Element) { subject.onNext(element) }

    /// Subscribes an observer to future elements.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }
}
