import Synchronization

extension ObservableType {
    /// Subscribes with closures.
    /// - Parameters:
    ///   - onNext: Called for each element.
    ///   - onError: Called when the sequence fails.
    ///   - onCompleted: Called when it completes.
    ///   - onDisposed: Called once when the subscription ends, in any way.
    /// - Returns: A disposable that ends the subscription.
    @discardableResult
    public func subscribe(
        onNext: (@Sendable (Element) -> Void)? = nil,
        onError: (@Sendable (any Error) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        let disposedOnce: (any Disposable)? = onDisposed.map { Disposables.create(with: $0) }
        let subscription = asObservable().subscribe(
            AnyObserver { event in
                switch event {
                case .next(let element): onNext?(element)
                case .error(let error):
                    onError?(error)
                    disposedOnce?.dispose()
                case .completed:
                    onCompleted?()
                    disposedOnce?.dispose()
                }
            })
        guard let disposedOnce else { return subscription }
        return Disposables.create(subscription, disposedOnce)
    }
}
