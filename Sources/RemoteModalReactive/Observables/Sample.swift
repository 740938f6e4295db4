import RemoteModalLocking

extension ObservableType {
    /// Emits the latest element of the source each time `sampler` emits or completes,
    /// if a new one arrived since the last sample (otherwise `defaultValue`, when given).
    ///
    /// As in RxSwift, the source's completion is forwarded at the next sample; an error of
    /// either sequence ends the output at once.
    /// - Parameters:
    ///   - sampler: The sequence whose events take the samples.
    ///   - defaultValue: What to emit when nothing new arrived (`nil`: emit nothing).
    /// - Returns: The sampled sequence.
    public func sample<Sampler: ObservableType>(
        _ sampler: Sampler, defaultValue: Element? = nil
    ) -> Observable<Element> {
        let source = asObservable()
        let ticks = sampler.asObservable()
        return Observable { observer in
            let state = Locked<(latest: Element?, atEnd: Bool)>((nil, false))
            let delivery = SerialDelivery<Event<Element>>()
            let forward: @Sendable (Event<Element>) -> Void = { delivery.enqueue($0, observer.on) }
            let sourceSubscription = SingleAssignmentDisposable()
            sourceSubscription.setDisposable(
                source.subscribe(
                    AnyObserver { event in
                        switch event {
                        case .next(let element): state.withLock { $0.latest = element }
                        case .error: forward(event)
                        case .completed: state.withLock { $0.atEnd = true }
                        }
                    }))
            let samplerSubscription = ticks.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next, .completed:
                        let (element, atEnd) = state.withLock { state in
                            defer { state.latest = nil }
                            return (state.latest ?? defaultValue, state.atEnd)
                        }
                        if let element { forward(.next(element)) }
                        if atEnd { forward(.completed) }
                    case .error(let error): forward(.error(error))
                    }
                })
            return Disposables.create(sourceSubscription, samplerSubscription)
        }
    }
}
