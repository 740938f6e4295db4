import RemoteModalLocking

extension ObservableType {
    /// Folds every element into an accumulator and emits the final result when the source
    /// completes (the seed, for an empty source).
    /// - Parameters:
    ///   - seed: The initial accumulator.
    ///   - accumulator: Combines the accumulator with the next element; a thrown error ends
    ///     the sequence with it.
    /// - Returns: A sequence of one element, the result, then completion.
    public func reduce<Accumulate: Sendable>(
        _ seed: Accumulate, accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate
    ) -> Observable<Accumulate> {
        reduce(seed, accumulator: accumulator, mapResult: { $0 })
    }

    /// Folds every element into an accumulator and emits the mapped final result when the
    /// source completes.
    /// - Parameters:
    ///   - seed: The initial accumulator.
    ///   - accumulator: Combines the accumulator with the next element.
    ///   - mapResult: Turns the final accumulator into the result.
    /// - Returns: A sequence of one element, the result, then completion.
    public func reduce<Accumulate: Sendable, Result: Sendable>(
        _ seed: Accumulate, accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate,
        mapResult: @escaping @Sendable (Accumulate) throws -> Result
    ) -> Observable<Result> {
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
                        } catch {
                            observer.onError(error)
                        }
                    case .error(let error): observer.onError(error)
                    case .completed:
                        do {
                            observer.onNext(try mapResult(current.withLock { $0 }))
                            observer.onCompleted()
                        } catch {
                            observer.onError(error)
                        }
                    }
                })
        }
    }
}
