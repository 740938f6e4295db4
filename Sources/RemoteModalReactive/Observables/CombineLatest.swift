import RemoteModalLocking
import Synchronization

/// Serialized state of one `combineLatest` subscription.
private final class CombineLatestSink: IndexedSink {
    private struct State {
        var latest: [(any Sendable)?]
        var completed: [Bool]
    }

    private let observer: AnyObserver<[any Sendable]>
    private let state: Locked<State>
    private let delivery = SerialDelivery<(Int, Event<any Sendable>)>()

    init(count: Int, observer: AnyObserver<[any Sendable]>) {
        self.observer = observer
        self.state = Locked(
            State(latest: Array(repeating: nil, count: count), completed: Array(repeating: false, count: count)))
    }

    func on(_ index: Int, _ event: Event<any Sendable>) {
        delivery.enqueue((index, event), handle)
    }

    private func handle(_ input: (Int, Event<any Sendable>)) {
        let (index, event) = input
        switch event {
        case .next(let value):
            let combined: [any Sendable]? = state.withLock { state in
                state.latest[index] = value
                let values = state.latest.compactMap { $0 }
                return values.count == state.latest.count ? values : nil
            }
            if let combined { observer.onNext(combined) }
        case .error(let error):
            observer.onError(error)
        case .completed:
            let done = state.withLock { state in
                state.completed[index] = true
                return state.latest[index] == nil || !state.completed.contains(false)
            }
            if done { observer.onCompleted() }
        }
    }
}

extension Observable where Element == [any Sendable] {
    /// The untyped engine behind the typed `combineLatest` overloads.
    static func combineLatestErased(_ sources: [Observable<any Sendable>]) -> Observable<[any Sendable]> {
        indexed(sources) { observer in CombineLatestSink(count: sources.count, observer: observer) }
    }
}

extension Observable {
    /// Combines the latest elements of several sequences whenever any of them emits,
    /// once each has emitted. Completes when all complete (or when one completes
    /// without ever emitting); fails with the first error.
    /// - Parameter sources: The sequences.
    /// - Returns: The arrays of latest elements, in `sources` order.
    public static func combineLatest<E: Sendable>(_ sources: [Observable<E>]) -> Observable<[E]>
    where Element == [E] {
        Observable<[any Sendable]>.combineLatestErased(sources.map { $0.map { $0 as any Sendable } })
            .map { $0.map { $0 as! E } }
    }

    /// Combines the latest elements of two sequences.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    ///   - resultSelector: Builds the output from the latest pair.
    /// - Returns: The combined sequence.
    public static func combineLatest<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping @Sendable (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        // Typed, not through the erased engine: the common pair (an action's enabled and
        // executing) emits without boxing, an array per event and casts back.
        let first = a.asObservable()
        let second = b.asObservable()
        return Observable { observer in
            let sink = CombineLatestPairSink(observer: observer, selector: resultSelector)
            return Disposables.create(
                first.subscribe(AnyObserver { sink.on(.first($0)) }),
                second.subscribe(AnyObserver { sink.on(.second($0)) }))
        }
    }

    /// Combines the latest elements of three sequences.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    ///   - c: The third sequence.
    ///   - resultSelector: Builds the output from the latest triple.
    /// - Returns: The combined sequence.
    public static func combineLatest<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C,
        resultSelector: @escaping @Sendable (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        Observable<[any Sendable]>.combineLatestErased([
            a.asObservable().map { $0 as any Sendable }, b.asObservable().map { $0 as any Sendable },
            c.asObservable().map { $0 as any Sendable },
        ])
        .map { try resultSelector($0[0] as! A.Element, $0[1] as! B.Element, $0[2] as! C.Element) }
    }
}

/// Serialized state of one two-source `combineLatest` subscription, typed.
private final class CombineLatestPairSink<A: Sendable, B: Sendable, Result: Sendable>: Sendable {
    enum Input: Sendable {
        case first(Event<A>)
        case second(Event<B>)
    }

    private struct State {
        var first: A?
        var second: B?
        var firstCompleted = false
        var secondCompleted = false
    }

    private let observer: AnyObserver<Result>
    private let selector: @Sendable (A, B) throws -> Result
    private let state = Locked(State())
    private let delivery = SerialDelivery<Input>()

    init(observer: AnyObserver<Result>, selector: @escaping @Sendable (A, B) throws -> Result) {
        self.observer = observer
        self.selector = selector
    }

    func on(_ input: Input) {
        delivery.enqueue(input, handle)
    }

    private func handle(_ input: Input) {
        switch input {
        case .first(.next(let value)):
            emit(
                state.withLock { state in
                    state.first = value
                    return state.second.map { (value, $0) }
                })
        case .second(.next(let value)):
            emit(
                state.withLock { state in
                    state.second = value
                    return state.first.map { ($0, value) }
                })
        case .first(.error(let error)), .second(.error(let error)):
            observer.onError(error)
        case .first(.completed):
            // Done when both completed, or when this one never emitted (nothing to combine).
            if state.withLock({ state in
                state.firstCompleted = true
                return state.first == nil || state.secondCompleted
            }) {
                observer.onCompleted()
            }
        case .second(.completed):
            if state.withLock({ state in
                state.secondCompleted = true
                return state.second == nil || state.firstCompleted
            }) {
                observer.onCompleted()
            }
        }
    }

    private func emit(_ pair: (A, B)?) {
        guard let (first, second) = pair else { return }
        do {
            observer.onNext(try selector(first, second))
        } catch {
            observer.onError(error)
        }
    }
}
