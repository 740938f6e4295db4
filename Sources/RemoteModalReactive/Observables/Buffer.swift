import RemoteModalLocking

extension ObservableType {
    /// Collects elements into arrays, emitting one every `timeSpan` (empty ones included)
    /// or as soon as it holds `count` elements, whichever comes first; a full buffer
    /// restarts the timer.
    ///
    /// On completion the last buffer (possibly empty) is emitted first; an error drops it.
    /// - Parameters:
    ///   - timeSpan: The longest time a buffer stays open.
    ///   - count: The most elements a buffer holds (at least 1).
    ///   - scheduler: Where the timer runs.
    /// - Returns: The sequence of buffers.
    public func buffer(timeSpan: Duration, count: Int, scheduler: any SchedulerType) -> Observable<[Element]> {
        let source = asObservable()
        let limit = max(1, count)
        return Observable { observer in
            let state = Locked<(buffer: [Element], window: UInt64)>(([], 0))
            let delivery = SerialDelivery<Event<[Element]>>()
            let forward: @Sendable (Event<[Element]>) -> Void = { delivery.enqueue($0, observer.on) }
            let timer = SerialDisposable()
            @Sendable func startTimer(_ window: UInt64) {
                timer.disposable = scheduler.schedule(after: timeSpan) {
                    let flushed: [Element]? = state.withLock { state in
                        guard state.window == window else { return nil }
                        defer {
                            state.buffer = []
                            state.window += 1
                        }
                        return state.buffer
                    }
                    guard let flushed, !timer.isDisposed else { return }
                    startTimer(window + 1)
                    forward(.next(flushed))
                }
            }
            startTimer(0)
            let subscription = source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        let full: ([Element], UInt64)? = state.withLock { state in
                            state.buffer.append(element)
                            guard state.buffer.count >= limit else { return nil }
                            defer {
                                state.buffer = []
                                state.window += 1
                            }
                            return (state.buffer, state.window + 1)
                        }
                        if let (buffer, window) = full {
                            startTimer(window)
                            forward(.next(buffer))
                        }
                    case .error(let error):
                        timer.dispose()
                        forward(.error(error))
                    case .completed:
                        timer.dispose()
                        forward(.next(state.withLock { $0.buffer }))
                        forward(.completed)
                    }
                })
            return Disposables.create(timer, subscription)
        }
    }
}
