/// A sequence with no element that completes or fails: work done for its effect.
public struct Completable: ObservableType {
    /// A completable has no elements.
    public typealias Element = Never

    private let source: Observable<Never>

    /// Wraps an observable with no elements.
    init(unchecked source: Observable<Never>) {
        self.source = source
    }

    /// Creates a completable from a function that reports completion or an error.
    /// - Parameter subscribe: Receives a callback (`nil`: completed, else the error).
    /// - Returns: The completable.
    public static func create(
        _ subscribe: @escaping @Sendable (@escaping @Sendable ((any Error)?) -> Void) -> any Disposable
    ) -> Completable {
        Completable(
            unchecked: Observable { observer in
                subscribe { error in
                    if let error { observer.onError(error) } else { observer.onCompleted() }
                }
            })
    }

    /// A completable that completes at once.
    /// - Returns: The completable.
    public static func empty() -> Completable { Completable(unchecked: .empty()) }

    /// A completable that fails at once.
    /// - Parameter error: The error.
    /// - Returns: The completable.
    public static func error(_ error: any Error) -> Completable { Completable(unchecked: .error(error)) }

    /// Subscribes an observer.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that cancels the work.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Never {
        source.subscribe(observer)
    }

    /// The completable as an observable.
    /// - Returns: The observable.
    public func asObservable() -> Observable<Never> { source }

    /// Subscribes with closures.
    /// - Parameters:
    ///   - onCompleted: Called on completion.
    ///   - onError: Called with the error.
    ///   - onDisposed: Called once when the subscription ends.
    /// - Returns: A disposable that cancels the work.
    @discardableResult
    public func subscribe(
        onCompleted: (@Sendable () -> Void)? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        source.subscribe(onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Runs another sequence after this one completes.
    /// - Parameter next: What to run next.
    /// - Returns: The next sequence's events, after this one's completion.
    public func andThen<Next: ObservableType>(_ next: Next) -> Observable<Next.Element> {
        let source = self.source
        return Observable { observer in
            let current = SerialDisposable()
            current.disposable = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next: break
                    case .error(let error): observer.onError(error)
                    case .completed: current.disposable = next.subscribe(observer)
                    }
                })
            return current
        }
    }
}

extension ObservableType {
    /// Ignores elements and keeps completion or error.
    /// - Returns: The completable.
    public func asCompletable() -> Completable {
        Completable(unchecked: ignoreElements())
    }
}
