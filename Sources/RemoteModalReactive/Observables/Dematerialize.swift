/// Something that can be viewed as an `Event`: lets `dematerialize()` be declared on
/// sequences of events.
public protocol EventConvertible<Element>: Sendable {
    /// The element type of the event.
    associatedtype Element: Sendable

    /// The event.
    var event: Event<Element> { get }
}

extension Event: EventConvertible {
    /// The event itself.
    public var event: Event<Element> { self }
}

extension ObservableType where Element: EventConvertible {
    /// Turns a sequence of events back into the events themselves: the inverse of
    /// `materialize()`. A terminal event element ends the output.
    /// - Returns: The dematerialized sequence.
    public func dematerialize() -> Observable<Element.Element> {
        let source = asObservable()
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element): observer.on(element.event)
                    case .error(let error): observer.onError(error)
                    case .completed: observer.onCompleted()
                    }
                })
        }
    }
}
