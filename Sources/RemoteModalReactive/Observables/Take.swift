import Synchronization

extension ObservableType {
    /// Emits the first `count` elements, then completes and disposes the source.
    /// - Parameter count: How many elements to take; 0 completes at once without subscribing.
    /// - Returns: The shortened sequence.
    public func take(_ count: Int) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            guard count > 0 else {
                observer.onCompleted()
                return Disposables.create()
            }
            let remaining = Atomic<Int>(count)
            return source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next:
                        let left = remaining.subtract(1, ordering: .acquiringAndReleasing).newValue
                        guard left >= 0 else { return }
                        observer.on(event)
                        if left == 0 { observer.onCompleted() }
                    case .error, .completed: observer.on(event)
                    }
                })
        }
    }
}
