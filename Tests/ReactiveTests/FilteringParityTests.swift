import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Filtering operators ported from RxSwift")
struct FilteringParityTests {
    let scheduler = TestScheduler()

    func hot(_ events: [Recorded<Event<Int>>]) -> TestableObservable<Int> {
        scheduler.createHotObservable(events)
    }

    @Test func takeWhileCompletesAtTheFirstMismatch() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 5), .next(240, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.take(while: { $0 < 3 }) }
        #expect(result.events == [.next(210, 1), .next(220, 2), .completed(230)])
        #expect(source.subscriptions == [Subscription(200, 230)])
    }

    @Test func takeWhileInclusiveEmitsTheMismatch() {
        let source = hot([.next(210, 1), .next(230, 5), .next(240, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.take(while: { $0 < 3 }, behavior: .inclusive) }
        #expect(result.events == [.next(210, 1), .next(230, 5), .completed(230)])
    }

    @Test func takeWhileThrowingPredicateFails() {
        let source = hot([.next(210, 1), .next(220, 2)])
        let result = scheduler.start {
            source.take(while: { value in
                if value == 2 { throw TestError("pred") }
                return true
            })
        }
        #expect(result.events == [.next(210, 1), .error(220, TestError("pred"))])
        #expect(source.subscriptions == [Subscription(200, 220)])
    }

    @Test func skipWhileDropsTheLeadingMatchesOnly() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 5), .next(240, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.skip(while: { $0 < 3 }) }
        #expect(result.events == [.next(230, 5), .next(240, 1), .completed(300)])
        #expect(source.subscriptions == [Subscription(200, 300)])
    }

    @Test func skipWhileForwardsErrors() {
        let source = hot([.next(210, 1), .error(220, TestError())])
        let result = scheduler.start { source.skip(while: { $0 < 3 }) }
        #expect(result.events == [.error(220, TestError())])
    }

    @Test func skipUntilOpensWhenTheOtherEmits() {
        let source = hot([.next(210, 1), .next(230, 2), .next(250, 3), .completed(300, Int.self)])
        let trigger = scheduler.createHotObservable([.next(220, "go"), .next(240, "again")])
        let result = scheduler.start { source.skip(until: trigger) }
        #expect(result.events == [.next(230, 2), .next(250, 3), .completed(300)])
        #expect(trigger.subscriptions == [Subscription(200, 220)])
        #expect(source.subscriptions == [Subscription(200, 300)])
    }

    @Test func skipUntilFailsWithTheOthersError() {
        let source = hot([.next(210, 1), .next(230, 2)])
        let trigger = scheduler.createHotObservable([.error(220, TestError("other"), String.self)])
        let result = scheduler.start { source.skip(until: trigger) }
        #expect(result.events == [.error(220, TestError("other"))])
        #expect(source.subscriptions == [Subscription(200, 220)])
    }

    @Test func skipUntilNeverOpenedSwallowsCompletionAsRxSwiftDoes() {
        let source = hot([.next(210, 1), .completed(300, Int.self)])
        let trigger = scheduler.createHotObservable([Recorded<Event<String>>]())
        let result = scheduler.start { source.skip(until: trigger) }
        #expect(result.events.isEmpty)
        #expect(source.subscriptions == [Subscription(200, 300)])
    }

    @Test func firstEmitsTheFirstElementAndDisposes() {
        let source = hot([.next(210, 1), .next(220, 2), .completed(300, Int.self)])
        let result = scheduler.start { source.first().asObservable() }
        #expect(result.events == [.next(210, Optional(1)), .completed(210)])
        #expect(source.subscriptions == [Subscription(200, 210)])
    }

    @Test func firstOfEmptyIsNil() {
        let source = hot([.completed(250, Int.self)])
        let result = scheduler.start { source.first().asObservable() }
        #expect(result.events == [.next(250, Int?.none), .completed(250)])
    }

    @Test func firstForwardsErrors() {
        let source = hot([.error(250, TestError())])
        let result = scheduler.start { source.first().asObservable() }
        #expect(result.events == [.error(250, TestError())])
    }

    @Test func takeLastEmitsTheTailAtCompletion() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300, Int.self)])
        let result = scheduler.start { source.takeLast(2) }
        #expect(result.events == [.next(300, 2), .next(300, 3), .completed(300)])
        #expect(source.subscriptions == [Subscription(200, 300)])
    }

    @Test func takeLastDropsTheTailOnError() {
        let source = hot([.next(210, 1), .error(300, TestError())])
        let result = scheduler.start { source.takeLast(2) }
        #expect(result.events == [.error(300, TestError())])
    }

    @Test func takeLastZeroOnlyCompletes() {
        let source = hot([.next(210, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.takeLast(0) }
        #expect(result.events == [.completed(300)])
    }

    @Test func ifEmptyDefaultFillsAnEmptySource() {
        let source = hot([.completed(300, Int.self)])
        let result = scheduler.start { source.ifEmpty(default: 9) }
        #expect(result.events == [.next(300, 9), .completed(300)])
    }

    @Test func ifEmptyDefaultLeavesElementsAlone() {
        let source = hot([.next(210, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.ifEmpty(default: 9) }
        #expect(result.events == [.next(210, 1), .completed(300)])
    }

    @Test func ifEmptySwitchToSubscribesTheFallbackOnlyWhenEmpty() {
        let source = hot([.completed(300, Int.self)])
        let other = scheduler.createColdObservable([.next(10, 7), .completed(20, Int.self)])
        let result = scheduler.start { source.ifEmpty(switchTo: other) }
        #expect(result.events == [.next(310, 7), .completed(320)])
        #expect(other.subscriptions == [Subscription(300, 320)])
    }

    @Test func ifEmptySwitchToDisposalReachesTheFallback() {
        let source = hot([.completed(300, Int.self)])
        let other = scheduler.createColdObservable([.next(100, 7)])
        let result = scheduler.start(disposed: 350) { source.ifEmpty(switchTo: other) }
        #expect(result.events.isEmpty)
        #expect(other.subscriptions == [Subscription(300, 350)])
    }

    @Test func ifEmptyForwardsErrors() {
        let source = hot([.error(300, TestError())])
        let result = scheduler.start { source.ifEmpty(default: 9) }
        #expect(result.events == [.error(300, TestError())])
    }
}
