import RemoteModalLocking

extension ObservableType {
    /// Emits the last `count` elements when the source completes; an error drops them.
    /// - Parameter count: How many elements to keep (0: none).
    /// - Returns: The tail of the sequence, emitted at completion.
    public func takeLast(_ count: Int) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let kept = Locked<[Element]>([])
            return source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        guard count > 0 else { return }
                        kept.withLock { kept in
                            kept.append(element)
                            if kept.count > count { kept.removeFirst(kept.count - count) }
                        }
                    case .error(let error): observer.onError(error)
                    case .completed:
                        for element in kept.withLock({ $0 }) { observer.onNext(element) }
                        observer.onCompleted()
                    }
                })
        }
    }
}
