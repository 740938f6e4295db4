import RemoteModalLocking
import Synchronization

/// Serialized state of one `zip` subscription.
private final class ZipSink: IndexedSink {
    private struct State {
        var queues: [[any Sendable]]
        var completed: [Bool]
    }

    private let observer: AnyObserver<[any Sendable]>
    private let state: Locked<State>
    private let delivery = SerialDelivery<(Int, Event<any Sendable>)>()

    init(count: Int, observer: AnyObserver<[any Sendable]>) {
        self.observer = observer
        self.state = Locked(
            State(queues: Array(repeating: [], count: count), completed: Array(repeating: false, count: count)))
    }

    func on(_ index: Int, _ event: Event<any Sendable>) {
        delivery.enqueue((index, event), handle)
    }

    private func handle(_ input: (Int, Event<any Sendable>)) {
        let (index, event) = input
        switch event {
        case .next(let value):
            let (tuple, done): ([any Sendable]?, Bool) = state.withLock { state in
                state.queues[index].append(value)
                guard state.queues.allSatisfy({ !$0.isEmpty }) else { return (nil, false) }
                let tuple = state.queues.indices.map { state.queues[$0].removeFirst() }
                return (tuple, exhausted(state))
            }
            if let tuple { observer.onNext(tuple) }
            if done { observer.onCompleted() }
        case .error(let error):
            observer.onError(error)
        case .completed:
            let done = state.withLock { state in
                state.completed[index] = true
                return exhausted(state)
            }
            if done { observer.onCompleted() }
        }
    }

    /// A zip is over when a completed source has nothing left to pair.
    private func exhausted(_ state: State) -> Bool {
        state.queues.indices.contains { state.completed[$0] && state.queues[$0].isEmpty }
    }
}

extension Observable where Element == [any Sendable] {
    /// The untyped engine behind the typed `zip` overloads.
    static func zipErased(_ sources: [Observable<any Sendable>]) -> Observable<[any Sendable]> {
        indexed(sources) { observer in ZipSink(count: sources.count, observer: observer) }
    }
}

extension Observable {
    /// Pairs the n-th elements of several sequences. Completes when a completed source
    /// has no element left to pair; fails with the first error.
    /// - Parameter sources: The sequences.
    /// - Returns: Arrays of n-th elements, in `sources` order.
    public static func zip<E: Sendable>(_ sources: [Observable<E>]) -> Observable<[E]> where Element == [E] {
        Observable<[any Sendable]>.zipErased(sources.map { $0.map { $0 as any Sendable } })
            .map { $0.map { $0 as! E } }
    }

    /// Pairs the n-th elements of two sequences.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    ///   - resultSelector: Builds the output from each pair.
    /// - Returns: The zipped sequence.
    public static func zip<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping @Sendable (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        Observable<[any Sendable]>.zipErased([
            a.asObservable().map { $0 as any Sendable }, b.asObservable().map { $0 as any Sendable },
        ])
        .map { try resultSelector($0[0] as! A.Element, $0[1] as! B.Element) }
    }
}
