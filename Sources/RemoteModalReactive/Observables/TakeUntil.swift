extension ObservableType {
    /// Emits elements until another sequence emits an element, then completes.
    /// An error from the other sequence ends this one with it; its completion is ignored.
    /// - Parameter other: The trigger.
    /// - Returns: The shortened sequence.
    public func take<Other: ObservableType>(until other: Other) -> Observable<Element> {
        let source = asObservable()
        let trigger = other.asObservable()
        return Observable { observer in
            let delivery = SerialDelivery<Event<Element>>()
            let triggerSubscription = trigger.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next: delivery.enqueue(.completed, observer.on)
                    case .error(let error): delivery.enqueue(.error(error), observer.on)
                    case .completed: break
                    }
                })
            let sourceSubscription = source.subscribe(AnyObserver { delivery.enqueue($0, observer.on) })
            return Disposables.create(triggerSubscription, sourceSubscription)
        }
    }

    /// Emits elements until one satisfies the predicate, then completes.
    /// - Parameters:
    ///   - predicate: The stop condition.
    ///   - behavior: `.inclusive` also emits the element that stopped it.
    /// - Returns: The shortened sequence.
    public func take(
        until predicate: @escaping @Sendable (Element) throws -> Bool, behavior: TakeBehavior = .exclusive
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    guard case .next(let element) = event else { return observer.on(event) }
                    do {
                        if try predicate(element) {
                            if behavior == .inclusive { observer.on(event) }
                            observer.onCompleted()
                        } else {
                            observer.on(event)
                        }
                    } catch {
                        observer.onError(error)
                    }
                })
        }
    }
}

/// Whether a predicate-bounded `take` emits the element that ends it.
public enum TakeBehavior: Sendable {
    /// Emit the matching element, then complete.
    case inclusive
    /// Complete without emitting the matching element.
    case exclusive
}
