extension ObservableType {
    /// Performs the subscription to the source on a scheduler.
    /// - Parameter scheduler: Where the source is subscribed.
    /// - Returns: The same sequence, subscribed there.
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let subscription = SingleAssignmentDisposable()
            let scheduled = scheduler.schedule {
                subscription.setDisposable(source.subscribe(observer))
            }
            return Disposables.create(scheduled, subscription)
        }
    }
}
