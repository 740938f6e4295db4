import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Combines each element with the latest element of another sequence; elements that
    /// arrive before the other sequence has emitted are dropped.
    /// - Parameters:
    ///   - second: The sequence whose latest element is sampled.
    ///   - resultSelector: Builds the output.
    /// - Returns: A sequence that completes with `self` and fails with either.
    public func withLatestFrom<Second: ObservableType, Result: Sendable>(
        _ second: Second,
        resultSelector: @escaping @Sendable (Element, Second.Element) throws -> Result
    ) -> Observable<Result> {
        let source = asObservable()
        let other = second.asObservable()
        return Observable { observer in
            let latest = Locked<Second.Element?>(nil)
            let delivery = SerialDelivery<Event<Result>>()
            let forward: @Sendable (Event<Result>) -> Void = { delivery.enqueue($0, observer.on) }
            let secondSubscription = other.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let value): latest.withLock { $0 = value }
                    case .error(let error): forward(.error(error))
                    case .completed: break
                    }
                })
            let firstSubscription = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        guard let value = latest.withLock({ $0 }) else { return }
                        do { forward(.next(try resultSelector(element, value))) } catch { forward(.error(error)) }
                    case .error(let error): forward(.error(error))
                    case .completed: forward(.completed)
                    }
                })
            return Disposables.create(firstSubscription, secondSubscription)
        }
    }

    /// Replaces each element with the latest element of another sequence.
    /// - Parameter second: The sequence whose latest element is sampled.
    /// - Returns: The sampled sequence.
    public func withLatestFrom<Second: ObservableType>(_ second: Second) -> Observable<Second.Element> {
        withLatestFrom(second) { $1 }
    }
}
