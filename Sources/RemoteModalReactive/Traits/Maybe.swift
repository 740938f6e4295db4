import Synchronization

/// A sequence of at most one element: a value, nothing, or an error.
public struct Maybe<Element: Sendable>: ObservableType {
    private let source: Observable<Element>

    /// Wraps an observable the caller guarantees emits at most one element.
    init(unchecked source: Observable<Element>) {
        self.source = source
    }

    /// The outcome a `Maybe.create` callback reports.
    public enum Outcome: Sendable {
        /// A value.
        case success(Element)
        /// No value.
        case completed
        /// An error.
        case error(any Error)
    }

    /// Creates a ``Maybe`` from a function that reports one outcome.
    /// - Parameter subscribe: Receives a callback to call once; returns what to dispose.
    /// - Returns: The maybe.
    public static func create(
        _ subscribe: @escaping @Sendable (@escaping @Sendable (Outcome) -> Void) -> any Disposable
    ) -> Maybe<Element> {
        Maybe(
            unchecked: Observable { observer in
                subscribe { outcome in
                    switch outcome {
                    case .success(let element):
                        observer.onNext(element)
                        observer.onCompleted()
                    case .completed: observer.onCompleted()
                    case .error(let error): observer.onError(error)
                    }
                }
            })
    }

    /// A maybe with a value.
    /// - Parameter element: The value.
    /// - Returns: The maybe.
    public static func just(_ element: Element) -> Maybe<Element> { Maybe(unchecked: .just(element)) }

    /// A maybe with no value.
    /// - Returns: The maybe.
    public static func empty() -> Maybe<Element> { Maybe(unchecked: .empty()) }

    /// A maybe that fails.
    /// - Parameter error: The error.
    /// - Returns: The maybe.
    public static func error(_ error: any Error) -> Maybe<Element> { Maybe(unchecked: .error(error)) }

    /// Subscribes an observer to the underlying events.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that cancels the maybe.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        source.subscribe(observer)
    }

    /// The maybe as an observable of at most one element.
    /// - Returns: The observable.
    public func asObservable() -> Observable<Element> { source }

    /// Subscribes with closures.
    /// - Parameters:
    ///   - onSuccess: Called with the value.
    ///   - onError: Called with the error.
    ///   - onCompleted: Called when there is no value.
    ///   - onDisposed: Called once when the subscription ends.
    /// - Returns: A disposable that cancels the maybe.
    @discardableResult
    public func subscribe(
        onSuccess: (@Sendable (Element) -> Void)? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        let gotValue = Atomic<Bool>(false)
        return source.subscribe(
            onNext: { element in
                gotValue.store(true, ordering: .releasing)
                onSuccess?(element)
            },
            onError: onError,
            onCompleted: { if !gotValue.load(ordering: .acquiring) { onCompleted?() } },
            onDisposed: onDisposed)
    }

    /// Transforms the value.
    /// - Parameter transform: The function.
    /// - Returns: The transformed maybe.
    public func map<Result: Sendable>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Maybe<Result> {
        Maybe<Result>(unchecked: source.map(transform))
    }

    /// A ``Single`` that fails with ``RxError/noElements`` when there is no value.
    /// - Returns: The single.
    public func asSingle() -> Single<Element> { source.asSingle() }
}

extension ObservableType {
    /// Expects at most one element; a second one fails with ``RxError/moreThanOneElement``.
    /// - Returns: The maybe.
    public func asMaybe() -> Maybe<Element> {
        let single = asObservable().materialize().toArray().asObservable().flatMap { events -> Observable<Element> in
            let elements = events.compactMap { $0.element }
            if let error = events.last?.error { return .error(error) }
            if elements.count > 1 { return .error(RxError.moreThanOneElement) }
            return .from(elements)
        }
        return Maybe(unchecked: single)
    }
}
