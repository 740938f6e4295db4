extension ObservableType {
    /// Continues with another sequence when this one fails.
    /// - Parameter handler: Builds the replacement from the error; a thrown error ends
    ///   the output with it.
    /// - Returns: The recovered sequence.
    public func `catch`(
        _ handler: @escaping @Sendable (any Error) throws -> Observable<Element>
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let current = SerialDisposable()
            let first = SingleAssignmentDisposable()
            current.disposable = first
            first.setDisposable(
                source.subscribe(
                    AnyObserver { event in
                        guard case .error(let error) = event else { return observer.on(event) }
                        do {
                            let replacement = try handler(error)
                            current.disposable = replacement.subscribe(observer)
                        } catch {
                            observer.onError(error)
                        }
                    }))
            return current
        }
    }
}
