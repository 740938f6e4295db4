import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Error-handling operators")
struct ErrorHandlingOperatorTests {
    let scheduler = TestScheduler()

    @Test func catchSwitchesToTheReplacement() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(230, TestError())])
        let fallback = scheduler.createColdObservable([.next(10, 99), .completed(20, Int.self)])
        let result = scheduler.start { source.catch { _ in fallback.asObservable() } }
        #expect(result.events == [.next(210, 1), .next(240, 99), .completed(250)])
        #expect(source.subscriptions == [Subscription(200, 230)])
        #expect(fallback.subscriptions == [Subscription(230, 250)])
    }

    @Test func catchHandlerThrowFails() {
        let source = scheduler.createHotObservable([.error(230, TestError("first"), Int.self)])
        let result = scheduler.start { source.catch { _ in throw TestError("second") } }
        #expect(result.events == [.error(230, TestError("second"))])
    }

    @Test func catchDisposeReachesTheReplacement() {
        let source = scheduler.createHotObservable([.error(230, TestError(), Int.self)])
        let fallback = scheduler.createColdObservable([.next(500, 1)])
        _ = scheduler.start(disposed: 400) { source.catch { _ in fallback.asObservable() } }
        #expect(fallback.subscriptions == [Subscription(230, 400)])
    }

    @Test func catchAndReturnEmitsFallback() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(230, TestError())])
        let result = scheduler.start { source.catchAndReturn(-1) }
        #expect(result.events == [.next(210, 1), .next(230, -1), .completed(230)])
    }

    @Test func retryResubscribesUpToTheLimit() {
        let source = scheduler.createColdObservable([.next(10, 1), .error(20, TestError(), Int.self)])
        let result = scheduler.start { source.retry(3) }
        #expect(result.events == [.next(210, 1), .next(230, 1), .next(250, 1), .error(260, TestError())])
        #expect(source.subscriptions == [Subscription(200, 220), Subscription(220, 240), Subscription(240, 260)])
    }

    @Test func retryStopsOnSuccess() {
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let result = scheduler.start { source.retry() }
        #expect(result.events == [.next(210, 1), .completed(220)])
    }

    @Test func retryUnlimitedKeepsGoingUntilDisposed() {
        let source = scheduler.createColdObservable([.error(100, TestError(), Int.self)])
        let result = scheduler.start(disposed: 550) { source.retry() }
        #expect(result.events.isEmpty)
        #expect(source.subscriptions.count == 4)
        #expect(source.subscriptions.last == Subscription(500, 550))
    }
}
