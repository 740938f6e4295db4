import RemoteModalLocking

extension ObservableType {
    /// Emits `default` before completing when the source completes without elements.
    /// - Parameter default: The element to emit for an empty source.
    /// - Returns: The sequence, never empty unless it fails.
    public func ifEmpty(default: Element) -> Observable<Element> {
        ifEmpty(switchTo: Observable.just(`default`))
    }

    /// Continues with another sequence when the source completes without elements.
    /// - Parameter other: The sequence to switch to.
    /// - Returns: The source's elements, or `other`'s when there were none.
    public func ifEmpty<Other: ObservableType>(switchTo other: Other) -> Observable<Element>
    where Other.Element == Element {
        let source = asObservable()
        let fallback = other.asObservable()
        return Observable { observer in
            let sawElement = Locked(false)
            let current = SerialDisposable()
            current.disposable = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next:
                        sawElement.withLock { $0 = true }
                        observer.on(event)
                    case .error: observer.on(event)
                    case .completed:
                        if sawElement.withLock({ $0 }) {
                            observer.on(event)
                        } else {
                            current.disposable = fallback.subscribe(observer)
                        }
                    }
                })
            return current
        }
    }
}
