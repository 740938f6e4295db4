import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Collects every element and emits them as one array when the sequence completes.
    /// - Returns: A ``Single`` of the array.
    public func toArray() -> Single<[Element]> {
        let source = asObservable()
        return Single(
            unchecked: Observable { observer in
                let collected = Locked<[Element]>([])
                return source.subscribe(
                    AnyObserver { event in
                        switch event {
                        case .next(let element): collected.withLock { $0.append(element) }
                        case .error(let error): observer.onError(error)
                        case .completed:
                            observer.onNext(collected.withLock { $0 })
                            observer.onCompleted()
                        }
                    })
            })
    }
}
