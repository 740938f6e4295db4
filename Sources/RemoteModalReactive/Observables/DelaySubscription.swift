extension ObservableType {
    /// Subscribes to the source only after `dueTime`; disposing before then cancels the
    /// subscription.
    /// - Parameters:
    ///   - dueTime: The delay.
    ///   - scheduler: Where the subscription is made.
    /// - Returns: The delayed sequence.
    public func delaySubscription(_ dueTime: Duration, scheduler: any SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let subscription = SerialDisposable()
            subscription.disposable = scheduler.schedule(after: dueTime) {
                guard !subscription.isDisposed else { return }
                subscription.disposable = source.subscribe(observer)
            }
            return subscription
        }
    }
}
