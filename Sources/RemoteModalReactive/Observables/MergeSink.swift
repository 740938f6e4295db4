import RemoteModalLocking
import Synchronization

/// How a flattening operator treats a new inner sequence while others are running.
enum FlattenStrategy: Sendable {
    /// Run inner sequences at once, up to a limit (`nil`: no limit); queue the rest.
    case all(maxConcurrent: Int?)
    /// Ignore new source elements while an inner sequence runs.
    case first
    /// Dispose the running inner sequence and switch to the new one.
    case latest
}

/// The one engine behind `flatMap`, `flatMapFirst`, `flatMapLatest`, `concatMap`,
/// `merge` and `concat`.
///
/// Inner events reach the observer serialized, whatever thread each inner sequence emits
/// on. The output completes when the source and every inner sequence have completed;
/// the first error from any of them ends it.
final class MergeSink<Source: Sendable, Result: Sendable>: Disposable, Sendable {
    private struct State {
        var inners: [UInt64: SingleAssignmentDisposable] = [:]
        var nextID: UInt64 = 0
        var latestID: UInt64?
        var queue: [Source] = []
        var queueHead = 0
        var sourceDone = false
        var disposed = false
    }

    private let strategy: FlattenStrategy
    private let selector: @Sendable (Source) throws -> Observable<Result>
    private let observer: AnyObserver<Result>
    private let delivery = SerialDelivery<Event<Result>>()
    private let state = Locked(State())
    private let sourceSubscription = SingleAssignmentDisposable()

    init(
        strategy: FlattenStrategy,
        observer: AnyObserver<Result>,
        selector: @escaping @Sendable (Source) throws -> Observable<Result>
    ) {
        self.strategy = strategy
        self.selector = selector
        self.observer = observer
    }

    func run(_ source: Observable<Source>) -> any Disposable {
        sourceSubscription.setDisposable(source.subscribe(AnyObserver(onSource)))
        return self
    }

    private func forward(_ event: Event<Result>) {
        delivery.enqueue(event, observer.on)
    }

    private func onSource(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            let startID: UInt64? = state.withLock { state in
                guard !state.disposed else { return nil }
                switch strategy {
                case .all(let limit):
                    if let limit, state.inners.count >= limit {
                        state.queue.append(element)
                        return nil
                    }
                case .first:
                    if !state.inners.isEmpty { return nil }
                case .latest:
                    break
                }
                return reserveInner(&state)
            }
            if let startID { start(element, id: startID) }
        case .error(let error):
            forward(.error(error))
        case .completed:
            let finished = state.withLock { state in
                state.sourceDone = true
                return state.inners.isEmpty
            }
            if finished { forward(.completed) }
        }
    }

    /// Records a new inner subscription slot; for `latest`, evicts the running one.
    private func reserveInner(_ state: inout State) -> UInt64 {
        let id = state.nextID
        state.nextID += 1
        if case .latest = strategy {
            state.latestID = id
        }
        state.inners[id] = SingleAssignmentDisposable()
        return id
    }

    private func start(_ element: Source, id: UInt64) {
        if case .latest = strategy { evictAllBut(id) }
        let inner: Observable<Result>
        do {
            inner = try selector(element)
        } catch {
            forward(.error(error))
            return
        }
        let subscription = inner.subscribe(
            AnyObserver { [self] event in
                switch event {
                case .next:
                    if case .latest = strategy, state.withLock({ $0.latestID }) != id { return }
                    forward(event)
                case .error:
                    forward(event)
                case .completed:
                    innerCompleted(id)
                }
            })
        let slot = state.withLock { $0.inners[id] }
        if let slot {
            slot.setDisposable(subscription)
        } else {
            subscription.dispose()
        }
    }

    private func evictAllBut(_ id: UInt64) {
        let evicted: [SingleAssignmentDisposable] = state.withLock { state in
            let old = state.inners.filter { $0.key != id }
            for key in old.keys { state.inners.removeValue(forKey: key) }
            return Array(old.values)
        }
        for slot in evicted { slot.dispose() }
    }

    private enum AfterInner {
        case nothing
        case complete
        case start(Source, UInt64)
    }

    private func innerCompleted(_ id: UInt64) {
        var finished: SingleAssignmentDisposable?
        let next: AfterInner = state.withLock { state in
            guard let slot = state.inners.removeValue(forKey: id) else { return .nothing }
            finished = slot
            if state.queueHead < state.queue.count {
                let element = state.queue[state.queueHead]
                state.queueHead += 1
                if state.queueHead == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.queueHead = 0
                }
                return .start(element, reserveInner(&state))
            }
            return state.inners.isEmpty && state.sourceDone ? .complete : .nothing
        }
        finished?.dispose()
        switch next {
        case .nothing: break
        case .complete: forward(.completed)
        case .start(let element, let newID): start(element, id: newID)
        }
    }

    func dispose() {
        let inners: [SingleAssignmentDisposable] = state.withLock { state in
            state.disposed = true
            state.queue = []
            defer { state.inners = [:] }
            return Array(state.inners.values)
        }
        sourceSubscription.dispose()
        for inner in inners { inner.dispose() }
    }
}

extension ObservableType {
    /// Shared entry point of the flattening operators.
    func flatten<Result: Sendable>(
        _ strategy: FlattenStrategy,
        _ selector: @escaping @Sendable (Element) throws -> Observable<Result>
    ) -> Observable<Result> {
        let source = asObservable()
        return Observable { observer in
            MergeSink(strategy: strategy, observer: observer, selector: selector).run(source)
        }
    }
}
