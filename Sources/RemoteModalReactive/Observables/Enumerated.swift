import RemoteModalLocking

extension ObservableType {
    /// Pairs each element with its index, counting from 0.
    /// - Returns: The sequence of `(index, element)` pairs.
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        let source = asObservable()
        return Observable { observer in
            let next = Locked(0)
            return source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        let index = next.withLock { next -> Int in
                            defer { next += 1 }
                            return next
                        }
                        observer.onNext((index, element))
                    case .error(let error): observer.onError(error)
                    case .completed: observer.onCompleted()
                    }
                })
        }
    }
}
