import RemoteModalLocking

/// Emits only the last element it receives, and only when it completes: observers get
/// that element then `completed` (or just `completed` if there was none); an error is
/// forwarded without an element. Observers that subscribe after the end receive the same.
public final class AsyncSubject<Element: Sendable>: ObservableType, ObserverType {
    private struct State {
        var observers: [(key: UInt64, observer: AnyObserver<Element>)] = []
        var nextKey: UInt64 = 0
        var last: Element?
        var stopEvent: Event<Element>?
    }

    private let state = Locked(State())
    private let delivery = SerialDelivery<Event<Element>>()

    /// Creates a subject.
    public init() {}

    /// Whether anyone is subscribed.
    public var hasObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    /// Receives an event: an element replaces the last one; a terminal event is
    /// broadcast (after the last element, for completion).
    /// - Parameter event: The event.
    public func on(_ event: Event<Element>) {
        delivery.enqueue(event, dispatch)
    }

    private func dispatch(_ event: Event<Element>) {
        let (observers, last): ([AnyObserver<Element>], Element?) = state.withLock { state in
            guard state.stopEvent == nil else { return ([], nil) }
            switch event {
            case .next(let element):
                state.last = element
                return ([], nil)
            case .error:
                state.last = nil
                fallthrough
            case .completed:
                state.stopEvent = event
                defer { state.observers = [] }
                return (state.observers.map(\.observer), state.last)
            }
        }
        for observer in observers {
            if let last { observer.onNext(last) }
            observer.on(event)
        }
    }

    /// Subscribes an observer: it receives the result once the subject ends.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        let observer = AnyObserver(observer)
        let (ended, key): ((Element?, Event<Element>)?, UInt64?) = state.withLock { state in
            if let stop = state.stopEvent { return ((state.last, stop), nil) }
            let key = state.nextKey
            state.nextKey += 1
            state.observers.append((key, observer))
            return (nil, key)
        }
        if let (last, stop) = ended {
            if let last { observer.onNext(last) }
            observer.on(stop)
        }
        guard let key else { return Disposables.create() }
        return Disposables.create { [weak self] in
            self?.state.withLock { state in state.observers.removeAll { $0.key == key } }
        }
    }
}
