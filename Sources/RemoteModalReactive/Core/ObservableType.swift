/// A push-based sequence of elements that observers subscribe to.
public protocol ObservableType<Element>: Sendable {
    /// The type of the elements.
    associatedtype Element: Sendable

    /// Subscribes an observer; events flow until the sequence ends or the returned
    /// disposable is disposed.
    /// - Parameter observer: The observer that receives the events.
    /// - Returns: A disposable that cancels the subscription.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element

    /// The sequence as a concrete ``Observable``.
    /// - Returns: An observable with the same events.
    func asObservable() -> Observable<Element>
}

extension ObservableType {
    /// The sequence as a concrete ``Observable``.
    /// - Returns: An observable that subscribes to `self`.
    public func asObservable() -> Observable<Element> {
        Observable { observer in self.subscribe(observer) }
    }
}
