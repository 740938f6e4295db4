import RemoteModalLocking

extension ObservableType {
    /// Splits the elements into windows, each a sequence of its own: a window closes after
    /// `timeSpan` or once it holds `count` elements, whichever comes first, and the next
    /// one opens at once. The first window opens on subscription.
    ///
    /// Each window is hot: subscribe to it when it is emitted to receive its elements.
    /// The source's completion or error ends the open window and the output with it.
    /// - Parameters:
    ///   - timeSpan: The longest time a window stays open.
    ///   - count: The most elements a window holds (at least 1).
    ///   - scheduler: Where the timer runs.
    /// - Returns: The sequence of windows.
    public func window(
        timeSpan: Duration, count: Int, scheduler: any SchedulerType
    ) -> Observable<Observable<Element>> {
        let source = asObservable()
        let limit = max(1, count)
        return Observable { observer in
            let state = Locked<(subject: PublishSubject<Element>, count: Int, window: UInt64)>(
                (PublishSubject(), 0, 0))
            // Timer and source events run one at a time, so windows open and close in order.
            let delivery = SerialDelivery<Boxed<@Sendable () -> Void>>()
            let run: @Sendable (@escaping @Sendable () -> Void) -> Void = { work in
                delivery.enqueue(Boxed(work)) { $0.value() }
            }
            let timer = SerialDisposable()
            /// Closes the window `expected` (if still open) and opens the next; `nil` when
            /// another close won the race.
            @Sendable func rotate(_ expected: UInt64) -> (old: PublishSubject<Element>, new: PublishSubject<Element>)? {
                state.withLock { state in
                    guard state.window == expected else { return nil }
                    let old = state.subject
                    state.subject = PublishSubject()
                    state.count = 0
                    state.window += 1
                    return (old, state.subject)
                }
            }
            @Sendable func startTimer(_ window: UInt64) {
                timer.disposable = scheduler.schedule(after: timeSpan) {
                    run {
                        guard !timer.isDisposed, let (old, new) = rotate(window) else { return }
                        startTimer(window + 1)
                        old.onCompleted()
                        observer.onNext(new.asObservable())
                    }
                }
            }
            run {
                startTimer(0)
                observer.onNext(state.withLock { $0.subject }.asObservable())
            }
            let subscription = source.subscribe(
                AnyObserver { event in
                    run {
                        switch event {
                        case .next(let element):
                            let (subject, full, window) = state.withLock { state in
                                state.count += 1
                                return (state.subject, state.count >= limit, state.window)
                            }
                            subject.onNext(element)
                            guard full, let (old, new) = rotate(window) else { return }
                            startTimer(window + 1)
                            old.onCompleted()
                            observer.onNext(new.asObservable())
                        case .error(let error):
                            timer.dispose()
                            state.withLock { $0.subject }.onError(error)
                            observer.onError(error)
                        case .completed:
                            timer.dispose()
                            state.withLock { $0.subject }.onCompleted()
                            observer.onCompleted()
                        }
                    }
                })
            return Disposables.create(timer, subscription)
        }
    }
}
