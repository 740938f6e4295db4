import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Drops elements equal to the previous one by a comparer.
    /// - Parameter comparer: Whether two consecutive elements count as equal.
    /// - Returns: The sequence without consecutive duplicates.
    public func distinctUntilChanged(
        _ comparer: @escaping @Sendable (Element, Element) throws -> Bool
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let previous = Locked<Element?>(nil)
            return source.subscribe(
                AnyObserver { event in
                    guard case .next(let element) = event else { return observer.on(event) }
                    do {
                        let last = previous.withLock { $0 }
                        if let last, try comparer(last, element) { return }
                        previous.withLock { $0 = element }
                        observer.on(event)
                    } catch {
                        observer.onError(error)
                    }
                })
        }
    }
}

extension ObservableType where Element: Equatable {
    /// Drops elements equal to the previous one.
    /// - Returns: The sequence without consecutive duplicates.
    public func distinctUntilChanged() -> Observable<Element> {
        distinctUntilChanged { $0 == $1 }
    }
}
