extension ObservableType {
    /// Shifts elements and completion later by `dueTime`; errors pass at once.
    /// - Parameters:
    ///   - dueTime: The shift.
    ///   - scheduler: Where the delayed events are delivered.
    /// - Returns: The delayed sequence.
    public func delay(_ dueTime: Duration, scheduler: any SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let delivery = SerialDelivery<Event<Element>>()
            // One flag cancels every scheduled delivery; fired ones simply do nothing.
            let cancelled = BooleanDisposable()
            let subscription = source.subscribe(
                AnyObserver { event in
                    if case .error = event {
                        cancelled.dispose()
                        observer.on(event)
                        return
                    }
                    _ = scheduler.schedule(after: dueTime) {
                        if !cancelled.isDisposed { delivery.enqueue(event, observer.on) }
                    }
                })
            return Disposables.create(subscription, cancelled)
        }
    }
}
