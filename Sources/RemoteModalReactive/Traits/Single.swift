import RemoteModalLocking
import Synchronization

/// A sequence of exactly one element, or an error: the shape of a modal's answer.
///
/// Subscribing starts the work (presents the modal); disposing cancels it.
public struct Single<Element: Sendable>: ObservableType {
    private let source: Observable<Element>

    /// Wraps an observable the caller guarantees emits one element then completes, or fails.
    init(unchecked source: Observable<Element>) {
        self.source = source
    }

    /// Creates a ``Single`` from a function that reports one result.
    /// - Parameter subscribe: Receives a callback to call once with the result; returns
    ///   what to dispose when the subscription ends.
    /// - Returns: The single.
    public static func create(
        _ subscribe: @escaping @Sendable (@escaping @Sendable (Result<Element, any Error>) -> Void) -> any Disposable
    ) -> Single<Element> {
        Single(
            unchecked: Observable { observer in
                subscribe { result in
                    switch result {
                    case .success(let element):
                        observer.onNext(element)
                        observer.onCompleted()
                    case .failure(let error):
                        observer.onError(error)
                    }
                }
            })
    }

    /// A single that succeeds at once.
    /// - Parameter element: The value.
    /// - Returns: The single.
    public static func just(_ element: Element) -> Single<Element> {
        Single(unchecked: .just(element))
    }

    /// A single that fails at once.
    /// - Parameter error: The error.
    /// - Returns: The single.
    public static func error(_ error: any Error) -> Single<Element> {
        Single(unchecked: .error(error))
    }

    /// A single that never answers.
    /// - Returns: The single.
    public static func never() -> Single<Element> {
        Single(unchecked: .never())
    }

    /// Builds a fresh single for each subscription.
    /// - Parameter factory: The builder; a thrown error fails the subscription.
    /// - Returns: The single.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Single<Element>) -> Single<Element> {
        Single(unchecked: .deferred { try factory().asObservable() })
    }

    /// Subscribes an observer to the underlying events.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that cancels the single.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        source.subscribe(observer)
    }

    /// The single as an observable of one element.
    /// - Returns: The observable.
    public func asObservable() -> Observable<Element> { source }

    /// Subscribes with one callback for the result.
    /// - Parameter handler: Called once with the value or the error.
    /// - Returns: A disposable that cancels the single.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (Result<Element, any Error>) -> Void) -> any Disposable {
        source.subscribe(
            AnyObserver { event in
                switch event {
                case .next(let element): handler(.success(element))
                case .error(let error): handler(.failure(error))
                case .completed: break
                }
            })
    }

    /// Subscribes with closures.
    /// - Parameters:
    ///   - onSuccess: Called with the value.
    ///   - onFailure: Called with the error.
    ///   - onDisposed: Called once when the subscription ends, in any way.
    /// - Returns: A disposable that cancels the single.
    @discardableResult
    public func subscribe(
        onSuccess: (@Sendable (Element) -> Void)? = nil,
        onFailure: (@Sendable (any Error) -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        source.subscribe(onNext: onSuccess, onError: onFailure, onDisposed: onDisposed)
    }

    /// Transforms the value.
    /// - Parameter transform: The function; a thrown error fails the single.
    /// - Returns: The transformed single.
    public func map<Result: Sendable>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Single<Result> {
        Single<Result>(unchecked: source.map(transform))
    }

    /// Continues with another single built from the value.
    /// - Parameter selector: Builds the next single.
    /// - Returns: The chained single.
    public func flatMap<Result: Sendable>(
        _ selector: @escaping @Sendable (Element) throws -> Single<Result>
    ) -> Single<Result> {
        Single<Result>(unchecked: source.flatMap { try selector($0).asObservable() })
    }

    /// Recovers from an error with another single.
    /// - Parameter handler: Builds the replacement.
    /// - Returns: The recovered single.
    public func `catch`(_ handler: @escaping @Sendable (any Error) throws -> Single<Element>) -> Single<Element> {
        Single(unchecked: source.catch { try handler($0).asObservable() })
    }

    /// Succeeds with a fallback value on error.
    /// - Parameter element: The fallback.
    /// - Returns: The recovered single.
    public func catchAndReturn(_ element: Element) -> Single<Element> {
        Single(unchecked: source.catchAndReturn(element))
    }

    /// Runs side effects without changing the result.
    /// - Parameters:
    ///   - onSuccess: Before the value is forwarded.
    ///   - onError: Before the error is forwarded.
    ///   - onSubscribe: Before subscribing.
    ///   - onDispose: When the subscription ends, in any way.
    /// - Returns: The same single.
    public func `do`(
        onSuccess: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Single<Element> {
        Single(
            unchecked: source.do(onNext: onSuccess, onError: onError, onSubscribe: onSubscribe, onDispose: onDispose))
    }

    /// Fails with ``RxError/timeout`` when no value arrives within `dueTime`.
    /// - Parameters:
    ///   - dueTime: The limit.
    ///   - scheduler: Where the timer runs.
    /// - Returns: The guarded single.
    public func timeout(_ dueTime: Duration, scheduler: any SchedulerType) -> Single<Element> {
        Single(unchecked: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Resubscribes after an error, up to `maxAttempts` subscriptions in all.
    /// - Parameter maxAttempts: The total number of subscriptions (`nil`: no limit).
    /// - Returns: The retrying single.
    public func retry(_ maxAttempts: Int? = nil) -> Single<Element> {
        Single(unchecked: source.retry(maxAttempts))
    }

    /// Delivers the result through a scheduler.
    /// - Parameter scheduler: Where the result is delivered.
    /// - Returns: The rescheduled single.
    public func observe(on scheduler: any ImmediateSchedulerType) -> Single<Element> {
        Single(unchecked: source.observe(on: scheduler))
    }

    /// Subscribes to the source on a scheduler.
    /// - Parameter scheduler: Where the work starts.
    /// - Returns: The same single.
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> Single<Element> {
        Single(unchecked: source.subscribe(on: scheduler))
    }

    /// The single as a ``Maybe`` that always has a value.
    /// - Returns: The maybe.
    public func asMaybe() -> Maybe<Element> { Maybe(unchecked: source) }

    /// The single as a ``Completable`` that ignores the value.
    /// - Returns: The completable.
    public func asCompletable() -> Completable { Completable(unchecked: source.ignoreElements()) }
}

extension ObservableType {
    /// Expects exactly one element: fails with ``RxError/noElements`` on an empty
    /// sequence and ``RxError/moreThanOneElement`` at a second element.
    /// - Returns: The single.
    public func asSingle() -> Single<Element> {
        let source = asObservable()
        return Single(
            unchecked: Observable { observer in
                let first = Locked<Element?>(nil)
                return source.subscribe(
                    AnyObserver { event in
                        switch event {
                        case .next(let element):
                            let duplicate = first.withLock { first -> Bool in
                                if first != nil { return true }
                                first = element
                                return false
                            }
                            if duplicate { observer.onError(RxError.moreThanOneElement) }
                        case .error(let error):
                            observer.onError(error)
                        case .completed:
                            if let element = first.withLock({ $0 }) {
                                observer.onNext(element)
                                observer.onCompleted()
                            } else {
                                observer.onError(RxError.noElements)
                            }
                        }
                    })
            })
    }
}
