/// Something that receives the events of a sequence.
public protocol ObserverType<Element>: Sendable {
    /// The type of the elements received.
    associatedtype Element: Sendable

    /// Receives one event.
    /// - Parameter event: The event, in the grammar `next* (error | completed)`.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// Sends a `next` event.
    /// - Parameter element: The element.
    public func onNext(_ element: Element) { on(.next(element)) }

    /// Sends the `completed` event.
    public func onCompleted() { on(.completed) }

    /// Sends an `error` event.
    /// - Parameter error: The error that ends the sequence.
    public func onError(_ error: any Error) { on(.error(error)) }

    /// Erases the observer's type.
    /// - Returns: An ``AnyObserver`` forwarding to this observer.
    public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }
}

/// A type-erased observer: a closure that receives events.
public struct AnyObserver<Element: Sendable>: ObserverType {
    /// The closure that receives each event.
    public let handler: @Sendable (Event<Element>) -> Void

    /// Creates an observer from an event handler.
    /// - Parameter handler: Called once per event.
    public init(_ handler: @escaping @Sendable (Event<Element>) -> Void) {
        self.handler = handler
    }

    /// Wraps another observer.
    /// - Parameter observer: The observer to forward to.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        if let erased = observer as? AnyObserver<Element> {
            self = erased
        } else {
            self.handler = observer.on
        }
    }

    /// Forwards the event to the handler.
    /// - Parameter event: The event.
    public func on(_ event: Event<Element>) { handler(event) }
}
