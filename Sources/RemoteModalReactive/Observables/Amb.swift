import RemoteModalLocking
import Synchronization

extension Observable {
    /// Mirrors whichever sequence produces an event first and disposes the others.
    /// - Parameter sources: The competing sequences.
    /// - Returns: The winner's events.
    public static func amb(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable { observer in
            let winner = Locked<Int?>(nil)
            let subscriptions = sources.map { _ in SingleAssignmentDisposable() }
            for (index, source) in sources.enumerated() {
                subscriptions[index].setDisposable(
                    source.subscribe(
                        AnyObserver { event in
                            let (won, first) = winner.withLock { winner -> (Bool, Bool) in
                                if winner == nil {
                                    winner = index
                                    return (true, true)
                                }
                                return (winner == index, false)
                            }
                            guard won else { return }
                            if first {
                                for (other, subscription) in subscriptions.enumerated() where other != index {
                                    subscription.dispose()
                                }
                            }
                            observer.on(event)
                        }))
            }
            return Disposables.create(subscriptions)
        }
    }
}

extension ObservableType {
    /// Mirrors whichever of `self` and `right` produces an event first.
    /// - Parameter right: The competing sequence.
    /// - Returns: The winner's events.
    public func amb<Right: ObservableType>(_ right: Right) -> Observable<Element> where Right.Element == Element {
        Observable.amb([asObservable(), right.asObservable()])
    }
}
