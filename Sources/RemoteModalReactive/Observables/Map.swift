extension ObservableType {
    /// Transforms each element.
    /// - Parameter transform: The function; a thrown error ends the sequence with it.
    /// - Returns: The transformed sequence.
    public func map<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) throws -> Result
    ) -> Observable<Result> {
        let source = asObservable()
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        do { observer.onNext(try transform(element)) } catch { observer.onError(error) }
                    case .error(let error): observer.onError(error)
                    case .completed: observer.onCompleted()
                    }
                })
        }
    }
}
