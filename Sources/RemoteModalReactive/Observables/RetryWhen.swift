extension ObservableType {
    /// Resubscribes after an error whenever the sequence returned by `notificationHandler`
    /// emits.
    ///
    /// The handler receives the errors of the source as a sequence and returns a trigger:
    /// each `next` of the trigger resubscribes to the source, an `error` ends the output
    /// with that error, and `completed` completes the output. The trigger is subscribed once,
    /// before the first subscription to the source.
    /// - Parameter notificationHandler: Maps the source's errors to the trigger.
    /// - Returns: The retrying sequence.
    public func retry<Trigger: ObservableType>(
        when notificationHandler: @escaping @Sendable (Observable<any Error>) -> Trigger
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            let errors = PublishSubject<any Error>()
            let delivery = SerialDelivery<Event<Element>>()
            let forward: @Sendable (Event<Element>) -> Void = { delivery.enqueue($0, observer.on) }
            let current = SerialDisposable()
            @Sendable func attempt() {
                let slot = SingleAssignmentDisposable()
                current.disposable = slot
                guard !current.isDisposed else { return }
                slot.setDisposable(
                    source.subscribe(
                        AnyObserver { event in
                            switch event {
                            case .next, .completed: forward(event)
                            case .error(let error): errors.onNext(error)
                            }
                        }))
            }
            let triggerSubscription = notificationHandler(errors.asObservable()).subscribe(
                AnyObserver { event in
                    switch event {
                    case .next: attempt()
                    case .error(let error): forward(.error(error))
                    case .completed: forward(.completed)
                    }
                })
            attempt()
            return Disposables.create(current, triggerSubscription)
        }
    }
}
