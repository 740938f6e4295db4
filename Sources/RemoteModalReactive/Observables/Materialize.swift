extension ObservableType {
    /// Turns every event, terminal ones included, into an element; then completes.
    /// - Returns: The sequence of events.
    public func materialize() -> Observable<Event<Element>> {
        let source = asObservable()
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    observer.onNext(event)
                    if event.isStopEvent { observer.onCompleted() }
                })
        }
    }
}
