import RemoteModalLocking
import Synchronization

/// The shared machinery of the subjects: observer registry, the remembered elements that
/// new observers receive, the terminal event, and serialized delivery.
///
/// NB: no `private` members: cross-module optimization cannot make private code available
/// to the modules that use this type, which then call it unspecialized, looking up its
/// generic types at run time (issue 31).
final class SubjectCore<Element: Sendable>: Sendable {
    enum Memory: Sendable {
        case none
        case latest
        case buffer(limit: Int?)
    }

    struct State {
        var observers: [(key: UInt64, observer: AnyObserver<Element>)] = []
        var nextKey: UInt64 = 0
        var remembered: [Element] = []
        var stopEvent: Event<Element>?
    }

    let memory: Memory
    let state: Locked<State>
    let delivery = SerialDelivery<Event<Element>>()

    init(memory: Memory, initial: [Element] = []) {
        self.memory = memory
        self.state = Locked(State(remembered: initial))
    }

    var hasObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    var latest: Element? { state.withLock { $0.remembered.last } }

    var stopEvent: Event<Element>? { state.withLock { $0.stopEvent } }

    func on(_ event: Event<Element>) {
        delivery.enqueue(event) { self.dispatch($0) }
    }

    func dispatch(_ event: Event<Element>) {
        let observers: [(key: UInt64, observer: AnyObserver<Element>)] = state.withLock { state in
            guard state.stopEvent == nil else { return [] }
            switch event {
            case .next(let element):
                switch memory {
                case .none: break
                case .latest:
                    // In place: a new one-element array per emission was an allocation each.
                    if state.remembered.count == 1 {
                        state.remembered[0] = element
                    } else {
                        state.remembered = [element]
                    }
                case .buffer(let limit):
                    state.remembered.append(element)
                    if let limit, state.remembered.count > limit {
                        state.remembered.removeFirst(state.remembered.count - limit)
                    }
                }
                return state.observers
            case .error, .completed:
                state.stopEvent = event
                defer { state.observers = [] }
                return state.observers
            }
        }
        for entry in observers { entry.observer.on(event) }
    }

    func subscribe(_ observer: AnyObserver<Element>) -> any Disposable {
        let (replay, stop, key): ([Element], Event<Element>?, UInt64?) = state.withLock { state in
            if let stop = state.stopEvent {
                return (state.remembered, stop, nil)
            }
            let key = state.nextKey
            state.nextKey += 1
            state.observers.append((key, observer))
            return (state.remembered, nil, key)
        }
        for element in replay { observer.on(.next(element)) }
        if let stop { observer.on(stop) }
        guard let key else { return Disposables.create() }
        return Disposables.create { [weak self] in
            self?.state.withLock { state in
                state.observers.removeAll { $0.key == key }
            }
        }
    }
}
