import RemoteModalLocking

extension ObservableType {
    /// Drops elements while they satisfy the predicate, then emits every later element.
    /// - Parameter predicate: The condition to keep dropping; a thrown error ends the
    ///   sequence with it.
    /// - Returns: The rest of the sequence from the first element that fails the predicate.
    public func skip(while predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let skipping = Locked(true)
            return source.subscribe(
                AnyObserver { event in
                    guard case .next(let element) = event, skipping.withLock({ $0 }) else {
                        return observer.on(event)
                    }
                    do {
                        guard try !predicate(element) else { return }
                        skipping.withLock { $0 = false }
                        observer.on(event)
                    } catch {
                        observer.onError(error)
                    }
                })
        }
    }
}
