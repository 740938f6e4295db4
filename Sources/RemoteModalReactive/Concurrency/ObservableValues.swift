extension ObservableType {
    /// The elements as an async sequence; ending the iteration (or the task) disposes
    /// the subscription. Elements are buffered without limit until consumed.
    public var values: AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let subscription = subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element): continuation.yield(element)
                    case .error(let error): continuation.finish(throwing: error)
                    case .completed: continuation.finish()
                    }
                })
            continuation.onTermination = { _ in subscription.dispose() }
        }
    }
}
