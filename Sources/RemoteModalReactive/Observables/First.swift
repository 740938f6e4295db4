extension ObservableType {
    /// The first element, or `nil` when the source completes empty; the source is
    /// disposed as soon as the first element arrives.
    /// - Returns: A ``Single`` of the first element.
    public func first() -> Single<Element?> {
        let source = asObservable()
        return Single(
            unchecked: Observable { observer in
                source.subscribe(
                    AnyObserver { event in
                        switch event {
                        case .next(let element):
                            observer.onNext(element)
                            observer.onCompleted()
                        case .error(let error): observer.onError(error)
                        case .completed:
                            observer.onNext(nil)
                            observer.onCompleted()
                        }
                    })
            })
    }
}
