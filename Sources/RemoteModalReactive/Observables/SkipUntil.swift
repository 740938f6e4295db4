import RemoteModalLocking

extension ObservableType {
    /// Drops elements until another sequence emits an element, then emits the rest.
    ///
    /// As in RxSwift: an error of either sequence ends the output with it; the other
    /// sequence's completion is ignored; and the source's completion is forwarded only once
    /// the gate has opened (before that, the output ends silently with the source).
    /// - Parameter other: The sequence whose first element opens the gate.
    /// - Returns: The gated sequence.
    public func skip<Other: ObservableType>(until other: Other) -> Observable<Element> {
        let source = asObservable()
        let trigger = other.asObservable()
        return Observable { observer in
            let open = Locked(false)
            let delivery = SerialDelivery<Event<Element>>()
            let forward: @Sendable (Event<Element>) -> Void = { delivery.enqueue($0, observer.on) }
            let triggerSubscription = SingleAssignmentDisposable()
            triggerSubscription.setDisposable(
                trigger.subscribe(
                    AnyObserver { event in
                        switch event {
                        case .next:
                            open.withLock { $0 = true }
                            triggerSubscription.dispose()
                        case .error(let error): forward(.error(error))
                        case .completed: break
                        }
                    }))
            let sourceSubscription = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next, .completed:
                        if open.withLock({ $0 }) { forward(event) }
                    case .error: forward(event)
                    }
                })
            return Disposables.create(triggerSubscription, sourceSubscription)
        }
    }
}
