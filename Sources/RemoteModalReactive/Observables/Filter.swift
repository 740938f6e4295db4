extension ObservableType {
    /// Keeps the elements that satisfy a predicate.
    /// - Parameter predicate: The test; a thrown error ends the sequence with it.
    /// - Returns: The filtered sequence.
    public func filter(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        do {
                            if try predicate(element) { observer.on(event) }
                        } catch {
                            observer.onError(error)
                        }
                    case .error, .completed: observer.on(event)
                    }
                })
        }
    }
}
