import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Emits each intermediate result of folding the elements into an accumulator.
    /// - Parameters:
    ///   - seed: The initial accumulator.
    ///   - accumulator: Combines the accumulator with the next element.
    /// - Returns: The sequence of accumulators.
    public func scan<Accumulate: Sendable>(
        _ seed: Accumulate, accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate
    ) -> Observable<Accumulate> {
        let source = asObservable()
        return Observable { observer in
            let current = Locked(seed)
            return source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        do {
                            let next = try accumulator(current.withLock { $0 }, element)
                            current.withLock { $0 = next }
                            observer.onNext(next)
                        } catch {
                            observer.onError(error)
                        }
                    case .error(let error): observer.onError(error)
                    case .completed: observer.onCompleted()
                    }
                })
        }
    }
}
