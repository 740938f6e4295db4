/// A ``BehaviorSubject`` that never terminates: a current value that can be observed.
public final class BehaviorRelay<Element: Sendable>: ObservableType {
    private let subject: BehaviorSubject<Element>

    /// Creates a relay with an initial value.
    /// - Parameter value: The initial value.
    public init(value: Element) {
        subject = BehaviorSubject(value: value)
    }

    /// The current value.
    public var value: Element {
        // A relay never receives a terminal event, so `value()` cannot throw.
        try! subject.value()
    }

    /// Sets the current value and broadcasts it.
    /// - Parameter element: The new value.
    public func accept(_ element: Element) { subject.onNext(element) }

    /// Subscribes an observer: it receives the current value, then later ones.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }
}
