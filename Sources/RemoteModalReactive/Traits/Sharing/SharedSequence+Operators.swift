extension SharedSequence {
    /// Transforms each element.
    /// - Parameter transform: The function (it cannot throw: the sequence never fails).
    /// - Returns: The transformed sequence.
    public func map<Result: Sendable>(_ transform: @escaping @Sendable (Element) -> Result) -> SharedSequence<
        Strategy, Result
    > {
        SharedSequence<Strategy, Result>(unchecked: asObservable().map(transform), scheduler: scheduler)
    }

    /// Transforms each element, dropping `nil` results.
    /// - Parameter transform: The function.
    /// - Returns: The transformed sequence.
    public func compactMap<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) -> Result?
    ) -> SharedSequence<Strategy, Result> {
        SharedSequence<Strategy, Result>(unchecked: asObservable().compactMap(transform), scheduler: scheduler)
    }

    /// Keeps the elements that satisfy the predicate.
    /// - Parameter predicate: The condition.
    /// - Returns: The filtered sequence.
    public func filter(_ predicate: @escaping @Sendable (Element) -> Bool) -> SharedSequence {
        SharedSequence(unchecked: asObservable().filter(predicate), scheduler: scheduler)
    }

    /// Emits `element` first, at subscription.
    /// - Parameter element: The first element.
    /// - Returns: The sequence.
    public func startWith(_ element: Element) -> SharedSequence {
        SharedSequence(unchecked: asObservable().startWith(element), scheduler: scheduler)
    }

    /// Maps each element to a shared sequence and follows only the latest one.
    /// - Parameter selector: Builds the inner sequence.
    /// - Returns: The flattened sequence.
    public func flatMapLatest<Result: Sendable>(
        _ selector: @escaping @Sendable (Element) -> SharedSequence<Strategy, Result>
    ) -> SharedSequence<Strategy, Result> {
        SharedSequence<Strategy, Result>(
            unchecked: asObservable().flatMapLatest { selector($0).asObservable() }, scheduler: scheduler)
    }
}

extension SharedSequence where Element: Equatable {
    /// Drops elements equal to the previous one.
    /// - Returns: The sequence without consecutive duplicates.
    public func distinctUntilChanged() -> SharedSequence {
        SharedSequence(unchecked: asObservable().distinctUntilChanged(), scheduler: scheduler)
    }
}

extension SharedSequence where Strategy == DriverSharingStrategy {
    /// The driver's elements as a signal (no replay to new subscribers).
    /// - Returns: The signal.
    public func asSignal() -> Signal<Element> {
        Signal(unchecked: asObservable(), scheduler: scheduler)
    }

    /// Subscribes with closures; the subscription is how the screen is driven.
    /// - Parameters:
    ///   - onNext: Called for each element, on the driver's scheduler.
    ///   - onCompleted: Called on completion.
    ///   - onDisposed: Called once when the subscription ends.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func drive(
        onNext: (@Sendable (Element) -> Void)? = nil, onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Sends every element to relays.
    /// - Parameter relays: The relays.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func drive(_ relays: BehaviorRelay<Element>...) -> any Disposable {
        subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Sends every event to observers.
    /// - Parameter observers: The observers.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> any Disposable
    where Observer.Element == Element {
        subscribe(AnyObserver { event in observers.forEach { $0.on(event) } })
    }
}

extension SharedSequence where Strategy == SignalSharingStrategy {
    /// Subscribes with closures.
    /// - Parameters:
    ///   - onNext: Called for each element, on the signal's scheduler.
    ///   - onCompleted: Called on completion.
    ///   - onDisposed: Called once when the subscription ends.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func emit(
        onNext: (@Sendable (Element) -> Void)? = nil, onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Sends every element to relays.
    /// - Parameter relays: The relays.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func emit(to relays: PublishRelay<Element>...) -> any Disposable {
        subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Sends every event to observers.
    /// - Parameter observers: The observers.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func emit<Observer: ObserverType>(to observers: Observer...) -> any Disposable
    where Observer.Element == Element {
        subscribe(AnyObserver { event in observers.forEach { $0.on(event) } })
    }
}
