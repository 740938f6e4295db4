import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Time-based operators on virtual time")
struct TimeOperatorTests {
    let scheduler = TestScheduler()

    @Test func timeoutFailsAfterSilence() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .next(300, 3)])
        let result = scheduler.start { source.timeout(.seconds(50), scheduler: scheduler) }
        #expect(result.events == [.next(210, 1), .next(240, 2), .error(290, RxError.timeout)])
        #expect(source.subscriptions == [Subscription(200, 290)])
    }

    @Test func timeoutSwitchesToOther() {
        let source = scheduler.createHotObservable([.next(210, 1)])
        let other = scheduler.createColdObservable([.next(5, 42), .completed(6, Int.self)])
        let result = scheduler.start {
            source.timeout(.seconds(20), other: other.asObservable(), scheduler: scheduler)
        }
        #expect(result.events == [.next(210, 1), .next(235, 42), .completed(236)])
        #expect(source.subscriptions == [Subscription(200, 230)])
    }

    @Test func timeoutDoesNotFireAfterCompletion() {
        let source = scheduler.createHotObservable([.next(210, 1), .completed(220, Int.self)])
        let result = scheduler.start { source.timeout(.seconds(50), scheduler: scheduler) }
        #expect(result.events == [.next(210, 1), .completed(220)])
    }

    @Test func delayShiftsElementsAndCompletion() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230, Int.self)])
        let result = scheduler.start { source.delay(.seconds(100), scheduler: scheduler) }
        #expect(result.events == [.next(310, 1), .next(320, 2), .completed(330)])
    }

    @Test func delayPassesErrorsAtOnceAndDropsPending() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(220, TestError())])
        let result = scheduler.start { source.delay(.seconds(100), scheduler: scheduler) }
        #expect(result.events == [.error(220, TestError())])
    }

    @Test func delayDisposeCancelsPending() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(290, 2)])
        let result = scheduler.start(disposed: 350) { source.delay(.seconds(100), scheduler: scheduler) }
        #expect(result.events == [.next(310, 1)])
    }

    @Test func debounceEmitsAfterQuiet() {
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(215, 2), .next(240, 3), .next(300, 4), .completed(305, Int.self),
        ])
        let result = scheduler.start { source.debounce(.seconds(20), scheduler: scheduler) }
        #expect(result.events == [.next(235, 2), .next(260, 3), .next(305, 4), .completed(305)])
    }

    @Test func throttleEmitsFirstThenLatestPerWindow() {
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(215, 2), .next(220, 3), .next(250, 4), .completed(300, Int.self),
        ])
        let result = scheduler.start { source.throttle(.seconds(20), scheduler: scheduler) }
        #expect(result.events == [.next(210, 1), .next(230, 3), .next(250, 4), .completed(300)])
    }

    @Test func throttleWithoutLatestDropsTheWindow() {
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(215, 2), .next(220, 3), .next(250, 4), .completed(300, Int.self),
        ])
        let result = scheduler.start { source.throttle(.seconds(20), latest: false, scheduler: scheduler) }
        #expect(result.events == [.next(210, 1), .next(250, 4), .completed(300)])
    }

    @Test func observeOnDeliversThroughTheScheduler() {
        let source = scheduler.createHotObservable([.next(210, 1), .completed(220, Int.self)])
        let result = scheduler.start { source.observe(on: scheduler) }
        #expect(result.events == [.next(210, 1), .completed(220)])
    }

    @Test func subscribeOnDefersTheSubscription() {
        let source = scheduler.createColdObservable([.next(10, 1)])
        let delayed = DelayedScheduler(inner: scheduler, ticks: 50)
        let result = scheduler.start { source.subscribe(on: delayed) }
        #expect(source.subscriptions == [Subscription(250, 1000)])
        #expect(result.events == [.next(260, 1)])
    }
}

/// An immediate scheduler that runs each action `ticks` later on a test scheduler.
struct DelayedScheduler: ImmediateSchedulerType {
    let inner: TestScheduler
    let ticks: Int
    func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        inner.scheduleAt(inner.clock + ticks, action)
    }
}
