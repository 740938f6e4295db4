extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// The async sequence as an observable: each subscription iterates it in a new task,
    /// forwarding its elements, then completion, or the error it throws. Disposing the
    /// subscription cancels the task (which ends the iteration at its next suspension).
    /// - Returns: The observable.
    public func asObservable() -> Observable<Element> {
        Observable { observer in
            let task = Task {
                do {
                    for try await element in self {
                        try Task.checkCancellation()
                        observer.onNext(element)
                    }
                    observer.onCompleted()
                } catch {
                    if !Task.isCancelled { observer.onError(error) }
                }
            }
            return Disposables.create { task.cancel() }
        }
    }
}
