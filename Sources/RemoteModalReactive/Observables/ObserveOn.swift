extension ObservableType {
    /// Delivers every event through a scheduler (for example the host's serial queue).
    /// - Parameter scheduler: Where observers receive the events.
    /// - Returns: The rescheduled sequence.
    public func observe(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let cancelled = BooleanDisposable()
            let subscription = source.subscribe(
                AnyObserver { event in
                    _ = scheduler.schedule {
                        if !cancelled.isDisposed { observer.on(event) }
                    }
                })
            return Disposables.create(cancelled, subscription)
        }
    }
}
