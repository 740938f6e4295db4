import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Drops the first `count` elements.
    /// - Parameter count: How many elements to drop.
    /// - Returns: The rest of the sequence.
    public func skip(_ count: Int) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let remaining = Locked(count)
            return source.subscribe(
                AnyObserver { event in
                    if case .next = event {
                        let skip = remaining.withLock { value -> Bool in
                            guard value > 0 else { return false }
                            value -= 1
                            return true
                        }
                        if skip { return }
                    }
                    observer.on(event)
                })
        }
    }
}
