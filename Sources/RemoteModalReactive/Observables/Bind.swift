extension ObservableType {
    /// Forwards every event to observers (subjects, UI-like sinks).
    /// - Parameter observers: The receivers.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind<Observer: ObserverType>(to observers: Observer...) -> any Disposable
    where Observer.Element == Element {
        subscribe(AnyObserver { event in observers.forEach { $0.on(event) } })
    }

    /// Forwards elements to relays. Relays never terminate, so completion and errors
    /// end the binding without reaching them.
    /// - Parameter relays: The receivers.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind(to relays: PublishRelay<Element>...) -> any Disposable {
        subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Forwards elements to relays; completion and errors end the binding only.
    /// - Parameter relays: The receivers.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind(to relays: BehaviorRelay<Element>...) -> any Disposable {
        subscribe(onNext: { element in relays.forEach { $0.accept(element) } })
    }
}
