import RemoteModalLocking
import Synchronization

extension ObservableType {
    /// Resubscribes after an error, up to `maxAttempts` subscriptions in all; the last
    /// error is forwarded when they are used up.
    /// - Parameter maxAttempts: The total number of subscriptions (`nil`: no limit).
    /// - Returns: The retrying sequence.
    public func retry(_ maxAttempts: Int? = nil) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let current = SerialDisposable()
            let attempts = Locked(0)
            @Sendable func attempt() {
                attempts.withLock { $0 += 1 }
                let slot = SingleAssignmentDisposable()
                current.disposable = slot
                slot.setDisposable(
                    source.subscribe(
                        AnyObserver { event in
                            guard case .error = event else { return observer.on(event) }
                            let made = attempts.withLock { $0 }
                            if let maxAttempts, made >= maxAttempts {
                                observer.on(event)
                            } else if !current.isDisposed {
                                attempt()
                            }
                        }))
            }
            attempt()
            return current
        }
    }
}
