extension ObservableType {
    /// Drops every element and keeps only completion or error.
    /// - Returns: A sequence with no elements.
    public func ignoreElements() -> Observable<Never> {
        let source = asObservable()
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next: break
                    case .error(let error): observer.onError(error)
                    case .completed: observer.onCompleted()
                    }
                })
        }
    }
}
