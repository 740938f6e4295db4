import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Transforming and filtering operators")
struct TransformOperatorTests {
    let scheduler = TestScheduler()

    func hot(_ events: [Recorded<Event<Int>>]) -> TestableObservable<Int> {
        scheduler.createHotObservable(events)
    }

    @Test func mapTransformsAndAThrowFails() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300, Int.self)])
        let result = scheduler.start {
            source.map { value -> Int in
                if value == 3 { throw TestError("three") }
                return value * 10
            }
        }
        #expect(result.events == [.next(210, 10), .next(220, 20), .error(230, TestError("three"))])
        #expect(source.subscriptions == [Subscription(200, 230)])
    }

    @Test func compactMapDropsNil() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 4), .completed(300, Int.self)])
        let result = scheduler.start { source.compactMap { $0 % 2 == 0 ? "\($0)" : nil } }
        #expect(result.events == [.next(220, "2"), .next(230, "4"), .completed(300)])
    }

    @Test func filterKeepsMatches() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300, Int.self)])
        let result = scheduler.start { source.filter { $0 != 2 } }
        #expect(result.events == [.next(210, 1), .next(230, 3), .completed(300)])
    }

    @Test func scanEmitsRunningTotals() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300, Int.self)])
        let result = scheduler.start { source.scan(10) { $0 + $1 } }
        #expect(result.events == [.next(210, 11), .next(220, 13), .next(230, 16), .completed(300)])
    }

    @Test func takeCompletesAfterCountAndDisposesSource() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300, Int.self)])
        let result = scheduler.start { source.take(2) }
        #expect(result.events == [.next(210, 1), .next(220, 2), .completed(220)])
        #expect(source.subscriptions == [Subscription(200, 220)])
    }

    @Test func takeZeroNeverSubscribes() {
        let source = hot([.next(210, 1)])
        let result = scheduler.start { source.take(0) }
        #expect(result.events == [.completed(200)])
        #expect(source.subscriptions.isEmpty)
    }

    @Test func takeUntilOtherCompletesWhenTriggered() {
        let source = hot([.next(210, 1), .next(230, 2), .next(260, 3)])
        let trigger = hot([.next(250, 0)])
        let result = scheduler.start { source.take(until: trigger) }
        #expect(result.events == [.next(210, 1), .next(230, 2), .completed(250)])
        #expect(source.subscriptions == [Subscription(200, 250)])
        #expect(trigger.subscriptions == [Subscription(200, 250)])
    }

    @Test func takeUntilOtherErrorFails() {
        let source = hot([.next(210, 1), .next(260, 3)])
        let trigger = hot([.error(250, TestError())])
        let result = scheduler.start { source.take(until: trigger) }
        #expect(result.events == [.next(210, 1), .error(250, TestError())])
    }

    @Test(arguments: [TakeBehavior.inclusive, .exclusive])
    func takeUntilPredicate(behavior: TakeBehavior) {
        let source = hot([.next(210, 1), .next(220, 5), .next(230, 2)])
        let result = scheduler.start { source.take(until: { $0 > 3 }, behavior: behavior) }
        let expected: [Recorded<Event<Int>>] =
            behavior == .inclusive
            ? [.next(210, 1), .next(220, 5), .completed(220)] : [.next(210, 1), .completed(220)]
        #expect(result.events == expected)
    }

    @Test func skipDropsFirst() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300, Int.self)])
        let result = scheduler.start { source.skip(2) }
        #expect(result.events == [.next(230, 3), .completed(300)])
    }

    @Test func distinctUntilChangedDropsRepeats() {
        let source = hot([.next(210, 1), .next(220, 1), .next(230, 2), .next(240, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.distinctUntilChanged() }
        #expect(result.events == [.next(210, 1), .next(230, 2), .next(240, 1), .completed(300)])
    }

    @Test func startWithPrefixes() {
        let source = hot([.next(210, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.startWith(-1, 0) }
        #expect(result.events == [.next(200, -1), .next(200, 0), .next(210, 1), .completed(300)])
    }

    @Test func doRunsSideEffectsInOrder() {
        let log = Log()
        let source = hot([.next(210, 1), .completed(300, Int.self)])
        let result = scheduler.start {
            source.do(
                onNext: { log.append("next \($0)") }, afterNext: { log.append("after \($0)") },
                onCompleted: { log.append("completed") }, onSubscribe: { log.append("subscribe") },
                onSubscribed: { log.append("subscribed") }, onDispose: { log.append("dispose") })
        }
        #expect(result.events == [.next(210, 1), .completed(300)])
        #expect(log.entries == ["subscribe", "subscribed", "next 1", "after 1", "completed", "dispose"])
    }

    @Test func doOnNextThrowFails() {
        let source = hot([.next(210, 1), .next(220, 2)])
        let result = scheduler.start { source.do(onNext: { if $0 == 2 { throw TestError() } }) }
        #expect(result.events == [.next(210, 1), .error(220, TestError())])
    }

    @Test func materializeTurnsEventsIntoElements() {
        let source = hot([.next(210, 1), .error(250, TestError())])
        let result = scheduler.start { source.materialize().map(\.debugDescription) }
        #expect(result.events == [.next(210, "next(1)"), .next(250, "error(test error)"), .completed(250)])
    }

    @Test func ignoreElementsKeepsCompletion() {
        let source = hot([.next(210, 1), .next(220, 2), .completed(300, Int.self)])
        let result = scheduler.start { source.ignoreElements().materialize().map(\.isStopEvent) }
        #expect(result.events == [.next(300, true), .completed(300)])
    }

    @Test func toArrayCollects() {
        let source = hot([.next(210, 1), .next(220, 2), .completed(300, Int.self)])
        let result = scheduler.start { source.toArray().asObservable() }
        #expect(result.events == [.next(300, [1, 2]), .completed(300)])
    }
}
