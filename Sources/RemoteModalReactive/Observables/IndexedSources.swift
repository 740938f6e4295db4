/// A sink that receives the events of several sources, each tagged with its index
/// (the engines of `combineLatest` and `zip`).
protocol IndexedSink: Sendable {
    /// Receives an event from source `index`.
    func on(_ index: Int, _ event: Event<any Sendable>)
}

extension Observable where Element == [any Sendable] {
    /// Subscribes every source to one sink made per subscription; no sources: completes.
    static func indexed(
        _ sources: [Observable<any Sendable>],
        makeSink: @escaping @Sendable (AnyObserver<[any Sendable]>) -> any IndexedSink
    ) -> Observable<[any Sendable]> {
        Observable { observer in
            guard !sources.isEmpty else {
                observer.onCompleted()
                return Disposables.create()
            }
            let sink = makeSink(observer)
            return Disposables.create(
                sources.enumerated().map { index, source in
                    source.subscribe(AnyObserver { sink.on(index, $0) })
                })
        }
    }
}
