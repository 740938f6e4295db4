import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Time-based operators ported from RxSwift, on virtual time")
struct TimeParityTests {
    let scheduler = TestScheduler()

    @Test func intervalCountsEveryPeriodUntilDisposed() {
        let result = scheduler.start(disposed: 250) { Observable.interval(.seconds(10), scheduler: scheduler) }
        #expect(result.events == [.next(210, 0), .next(220, 1), .next(230, 2), .next(240, 3)])
    }

    @Test func timerEmitsOnceThenCompletes() {
        let result = scheduler.start { Observable.timer(.seconds(30), scheduler: scheduler) }
        #expect(result.events == [.next(230, 0), .completed(230)])
    }

    @Test func periodicTimerKeepsCounting() {
        let result = scheduler.start(disposed: 265) {
            Observable.timer(.seconds(30), period: .seconds(10), scheduler: scheduler)
        }
        #expect(result.events == [.next(230, 0), .next(240, 1), .next(250, 2), .next(260, 3)])
    }

    @Test func timerDisposedBeforeItFiresEmitsNothing() {
        let result = scheduler.start(disposed: 220) { Observable.timer(.seconds(30), scheduler: scheduler) }
        #expect(result.events.isEmpty)
    }

    @Test func bufferEmitsOnCountOrTimeAndFlushesAtCompletion() {
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(270, 5), .completed(350, Int.self),
        ])
        let result = scheduler.start { source.buffer(timeSpan: .seconds(50), count: 3, scheduler: scheduler) }
        #expect(
            result.events == [
                .next(230, [1, 2, 3]), .next(280, [4, 5]), .next(330, []), .next(350, []), .completed(350),
            ])
        #expect(source.subscriptions == [Subscription(200, 350)])
    }

    @Test func bufferDropsTheOpenBufferOnError() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(220, TestError())])
        let result = scheduler.start { source.buffer(timeSpan: .seconds(50), count: 3, scheduler: scheduler) }
        #expect(result.events == [.error(220, TestError())])
    }

    @Test func bufferStopsTheTimerOnDisposal() {
        let source = scheduler.createHotObservable([.next(210, 1)])
        let result = scheduler.start(disposed: 260) {
            source.buffer(timeSpan: .seconds(50), count: 3, scheduler: scheduler)
        }
        #expect(result.events == [.next(250, [1])])
        #expect(source.subscriptions == [Subscription(200, 260)])
    }

    @Test func windowOpensAWindowPerCountOrTimeSpan() {
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(290, 4), .completed(300, Int.self),
        ])
        let windows = source.window(timeSpan: .seconds(50), count: 2, scheduler: scheduler)
        let opened = scheduler.start { windows.map { _ in "open" } }
        #expect(opened.events == [.next(200, "open"), .next(220, "open"), .next(270, "open"), .completed(300)])
    }

    @Test func windowRoutesElementsToTheOpenWindow() {
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(290, 4), .completed(300, Int.self),
        ])
        let result = scheduler.start {
            source.window(timeSpan: .seconds(50), count: 2, scheduler: scheduler)
                .enumerated()
                .flatMap { index, window in window.map { "\(index):\($0)" } }
        }
        #expect(
            result.events == [
                .next(210, "0:1"), .next(220, "0:2"), .next(230, "1:3"), .next(290, "2:4"), .completed(300),
            ])
        #expect(source.subscriptions == [Subscription(200, 300)])
    }

    @Test func windowErrorEndsTheOpenWindowToo() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(220, TestError())])
        let result = scheduler.start {
            source.window(timeSpan: .seconds(50), count: 5, scheduler: scheduler)
                .flatMap { $0.materialize() }
                .map { $0.isStopEvent ? "window ended" : "element" }
        }
        #expect(result.events == [.next(210, "element"), .next(220, "window ended"), .error(220, TestError())])
    }

    @Test func sampleTakesTheLatestNewElementPerTick() {
        let source = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(250, 3), .next(260, 4), .completed(320, Int.self),
        ])
        let sampler = scheduler.createHotObservable([
            .next(230, "tick"), .next(240, "tick"), .next(270, "tick"), .next(330, "tick"),
        ])
        let result = scheduler.start { source.sample(sampler) }
        #expect(result.events == [.next(230, 2), .next(270, 4), .completed(330)])
        #expect(source.subscriptions == [Subscription(200, 320)])
        #expect(sampler.subscriptions == [Subscription(200, 330)])
    }

    @Test func sampleWithDefaultFillsEmptyTicks() {
        let source = scheduler.createHotObservable([.next(210, 1), .completed(320, Int.self)])
        let sampler = scheduler.createHotObservable([.next(230, "tick"), .next(240, "tick"), .next(330, "tick")])
        let result = scheduler.start { source.sample(sampler, defaultValue: 0) }
        #expect(result.events == [.next(230, 1), .next(240, 0), .next(330, 0), .completed(330)])
    }

    @Test func sampleFailsWithEitherError() {
        let source = scheduler.createHotObservable([.next(210, 1)])
        let sampler = scheduler.createHotObservable([.error(230, TestError("sampler"), String.self)])
        let result = scheduler.start { source.sample(sampler) }
        #expect(result.events == [.error(230, TestError("sampler"))])
        #expect(source.subscriptions == [Subscription(200, 230)])
    }

    @Test func delaySubscriptionSubscribesLater() {
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let result = scheduler.start { source.delaySubscription(.seconds(30), scheduler: scheduler) }
        #expect(result.events == [.next(240, 1), .completed(250)])
        #expect(source.subscriptions == [Subscription(230, 250)])
    }

    @Test func delaySubscriptionDisposedEarlyNeverSubscribes() {
        let source = scheduler.createColdObservable([.next(10, 1)])
        let result = scheduler.start(disposed: 220) { source.delaySubscription(.seconds(30), scheduler: scheduler) }
        #expect(result.events.isEmpty)
        #expect(source.subscriptions.isEmpty)
    }

    @Test func retryWhenResubscribesOnEachTriggerAndFailsWhenTheHandlerDoes() {
        let source = scheduler.createColdObservable([.next(10, 1), .error(20, TestError("flaky"))])
        let result = scheduler.start {
            source.retry(when: { errors in
                errors.enumerated().flatMap { attempt, error -> Observable<Int> in
                    attempt < 2 ? Observable.timer(.seconds(5), scheduler: scheduler) : Observable.error(error)
                }
            })
        }
        #expect(
            result.events == [.next(210, 1), .next(235, 1), .next(260, 1), .error(270, TestError("flaky"))])
        #expect(source.subscriptions == [Subscription(200, 220), Subscription(225, 245), Subscription(250, 270)])
    }

    @Test func retryWhenCompletesWhenTheTriggerCompletes() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(310, 2)])
        let trigger = scheduler.createHotObservable([.completed(300, Int.self)])
        let result = scheduler.start { source.retry(when: { _ in trigger }) }
        #expect(result.events == [.next(210, 1), .completed(300)])
        #expect(source.subscriptions == [Subscription(200, 300)])
        #expect(trigger.subscriptions == [Subscription(200, 300)])
    }

    @Test func retryWhenPassesSourceCompletion() {
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let result = scheduler.start { source.retry(when: { $0 }) }
        #expect(result.events == [.next(210, 1), .completed(220)])
    }

    @Test func retryWhenDisposalReachesSourceAndTrigger() {
        let source = scheduler.createColdObservable([.next(10, 1), .error(20, TestError())])
        let result = scheduler.start(disposed: 245) {
            source.retry(when: { errors in
                errors.flatMap { _ in Observable.timer(.seconds(10), scheduler: scheduler) }
            })
        }
        #expect(result.events == [.next(210, 1), .next(240, 1)])
        #expect(source.subscriptions == [Subscription(200, 220), Subscription(230, 245)])
    }
}
