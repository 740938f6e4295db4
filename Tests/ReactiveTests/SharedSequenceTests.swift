import Dispatch
import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

/// A scheduler that holds every action until the test runs them, to show what goes
/// through a scheduler and what does not.
final class ManualScheduler: ImmediateSchedulerType {
    private let pending = Locked<[Boxed<@Sendable () -> Void>]>([])

    var pendingCount: Int { pending.withLock { $0.count } }

    func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        pending.withLock { $0.append(Boxed(action)) }
        return Disposables.create()
    }

    func runAll() {
        while let next = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { next.value() }
    }
}

@Suite("Driver and Signal: never fail, shared, delivered on a scheduler")
struct SharedSequenceTests {
    let scheduler = TestScheduler()

    @Test func driverReplacesTheErrorAndCompletes() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(230, TestError())])
        let result = scheduler.start { source.asDriver(onErrorJustReturn: -1, scheduler: scheduler).asObservable() }
        #expect(result.events == [.next(210, 1), .next(230, -1), .completed(230)])
        #expect(source.subscriptions == [Subscription(200, 230)])
    }

    @Test func driverRecoversWithAnotherDriver() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(230, TestError("x"))])
        let result = scheduler.start {
            source.asDriver(
                onErrorRecover: { error in Driver.just("\(error)".count, scheduler: scheduler) }, scheduler: scheduler
            )
            .asObservable()
        }
        #expect(result.events == [.next(210, 1), .next(230, 1), .completed(230)])
        let other = TestScheduler()
        let fallback = other.start {
            Observable<Int>.error(TestError())
                .asDriver(onErrorDriveWith: .just(7, scheduler: other), scheduler: other)
                .asObservable()
        }
        #expect(fallback.events == [.next(200, 7), .completed(200)])
    }

    @Test func driverSharesOneSubscriptionAndReplaysTheLatest() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let driver = source.asDriver(onErrorJustReturn: 0, scheduler: scheduler)
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { driver.drive(early) }
        scheduler.scheduleAt(230) { driver.drive(late) }
        scheduler.advanceTo(300)
        #expect(early.events == [.next(210, 1), .next(220, 2), .next(240, 3)])
        #expect(late.events == [.next(230, 2), .next(240, 3)])
        #expect(source.subscriptions == [Subscription(200)])
    }

    @Test func signalSharesWithoutReplay() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let signal = source.asSignal(onErrorJustReturn: 0, scheduler: scheduler)
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { signal.emit(to: early) }
        scheduler.scheduleAt(230) { signal.emit(to: late) }
        scheduler.advanceTo(300)
        #expect(early.events == [.next(210, 1), .next(220, 2), .next(240, 3)])
        #expect(late.events == [.next(240, 3)])
        #expect(source.subscriptions == [Subscription(200)])
    }

    @Test func lastSubscriberLeavingDisconnects() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let driver = source.asDriver(onErrorJustReturn: 0, scheduler: scheduler).map { $0 * 10 }
        let result = scheduler.start(disposed: 250) { driver.asObservable() }
        #expect(result.events == [.next(210, 10)])
        #expect(source.subscriptions == [Subscription(200, 250)])
    }

    @Test func eventsGoThroughTheScheduler() {
        let manual = ManualScheduler()
        let relay = BehaviorRelay(value: 1)
        let received = Log()
        let subscription = relay.asDriver(scheduler: manual).map { $0 * 2 }.drive(onNext: { received.append("\($0)") })
        relay.accept(2)
        #expect(received.entries.isEmpty)
        #expect(manual.pendingCount == 2)
        manual.runAll()
        #expect(received.entries == ["2", "4"])
        subscription.dispose()
    }

    @Test func operatorsKeepTheSignalsScheduler() {
        let manual = ManualScheduler()
        let relay = PublishRelay<Int>()
        let received = Log()
        let signal = relay.asSignal(scheduler: manual).filter { $0 > 1 }.compactMap { $0 == 3 ? nil : $0 }
        #expect(signal.scheduler is ManualScheduler)
        let subscription = signal.emit(onNext: { received.append("\($0)") })
        for value in 1...4 { relay.accept(value) }
        #expect(received.entries.isEmpty)
        manual.runAll()
        #expect(received.entries == ["2", "4"])
        subscription.dispose()
    }

    @Test func distinctUntilChangedAndFlatMapLatestStayShared() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 1), .next(230, 2)])
        let result = scheduler.start {
            source.asDriver(onErrorJustReturn: 0, scheduler: scheduler)
                .distinctUntilChanged()
                .flatMapLatest { Driver.just($0 * 100, scheduler: scheduler) }
                .startWith(0)
                .asObservable()
        }
        #expect(result.events == [.next(200, 0), .next(210, 100), .next(230, 200)])
    }

    @Test func theDefaultSchedulerIsOneSerialQueue() throws {
        let queue = try #require((SharingScheduler.default as? SerialDispatchQueueScheduler)?.queue)
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "sharing")
        let onQueue = Log()
        let relay = BehaviorRelay(value: 1)
        let subscription = relay.asDriver().drive(onNext: { _ in
            onQueue.append(DispatchQueue.getSpecific(key: key) ?? "elsewhere")
        })
        relay.accept(2)
        queue.sync {}
        #expect(onQueue.entries == ["sharing", "sharing"])
        subscription.dispose()
    }
}
