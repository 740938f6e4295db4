extension ObservableType {
    /// Transforms each element and drops the `nil` results.
    /// - Parameter transform: The function; a thrown error ends the sequence with it.
    /// - Returns: The sequence of non-nil results.
    public func compactMap<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) throws -> Result?
    ) -> Observable<Result> {
        let source = asObservable()
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        do {
                            if let result = try transform(element) { observer.onNext(result) }
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
