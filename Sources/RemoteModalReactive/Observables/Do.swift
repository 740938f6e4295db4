extension ObservableType {
    /// Runs side effects at points of the sequence's life without changing its events.
    /// - Parameters:
    ///   - onNext: Before each element is forwarded; a thrown error ends the sequence.
    ///   - afterNext: After each element is forwarded.
    ///   - onError: Before the error is forwarded.
    ///   - onCompleted: Before completion is forwarded.
    ///   - onSubscribe: Before subscribing to the source.
    ///   - onSubscribed: After subscribing to the source.
    ///   - onDispose: When the subscription ends, in any way.
    /// - Returns: The same sequence.
    public func `do`(
        onNext: (@Sendable (Element) throws -> Void)? = nil,
        afterNext: (@Sendable (Element) -> Void)? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            onSubscribe?()
            let subscription = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        do {
                            try onNext?(element)
                        } catch {
                            observer.onError(error)
                            return
                        }
                        observer.on(event)
                        afterNext?(element)
                    case .error(let error):
                        onError?(error)
                        observer.on(event)
                    case .completed:
                        onCompleted?()
                        observer.on(event)
                    }
                })
            onSubscribed?()
            return Disposables.create {
                subscription.dispose()
                onDispose?()
            }
        }
    }
}
