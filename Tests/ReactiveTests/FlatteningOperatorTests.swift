import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Flattening operators")
struct FlatteningOperatorTests {
    let scheduler = TestScheduler()

    /// Source emits 1 at 210 and 2 at 240; each inner sequence emits value*10 after 20
    /// ticks and value*10+1 after 50 ticks, then completes at 60.
    func run(
        _ body: @escaping @Sendable (Observable<Int>, @escaping @Sendable (Int) -> Observable<Int>) -> Observable<Int>
    )
        -> (TestableObserver<Int>, TestableObservable<Int>)
    {
        let source = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .completed(400, Int.self)])
        let scheduler = self.scheduler
        let inner: @Sendable (Int) -> Observable<Int> = { value in
            scheduler.createColdObservable([
                .next(20, value * 10), .next(50, value * 10 + 1), .completed(60, Int.self),
            ]).asObservable()
        }
        let result = scheduler.start { body(source.asObservable(), inner) }
        return (result, source)
    }

    @Test func flatMapMergesAll() {
        let (result, _) = run { $0.flatMap($1) }
        #expect(
            result.events == [.next(230, 10), .next(260, 11), .next(260, 20), .next(290, 21), .completed(400)])
    }

    @Test func flatMapFirstIgnoresWhileBusy() {
        let (result, _) = run { $0.flatMapFirst($1) }
        #expect(result.events == [.next(230, 10), .next(260, 11), .completed(400)])
    }

    @Test func flatMapLatestSwitches() {
        let (result, _) = run { $0.flatMapLatest($1) }
        #expect(result.events == [.next(230, 10), .next(260, 20), .next(290, 21), .completed(400)])
    }

    @Test func concatMapRunsInOrder() {
        let (result, _) = run { $0.concatMap($1) }
        #expect(result.events == [.next(230, 10), .next(260, 11), .next(290, 20), .next(320, 21), .completed(400)])
    }

    @Test func outputWaitsForInnerSequencesToComplete() {
        let source = scheduler.createHotObservable([.next(210, 1), .completed(220, Int.self)])
        let inner = scheduler.createColdObservable([.next(50, 5), .completed(100, Int.self)])
        let result = scheduler.start { source.flatMap { _ in inner } }
        #expect(result.events == [.next(260, 5), .completed(310)])
        #expect(inner.subscriptions == [Subscription(210, 310)])
    }

    @Test func innerErrorFailsAndDisposesEverything() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2)])
        let failing = scheduler.createColdObservable([.error(30, TestError(), Int.self)])
        let quiet = scheduler.createColdObservable([.next(500, 0)])
        let result = scheduler.start { source.flatMap { $0 == 1 ? quiet.asObservable() : failing.asObservable() } }
        #expect(result.events == [.error(250, TestError())])
        #expect(quiet.subscriptions == [Subscription(210, 250)])
        #expect(source.subscriptions == [Subscription(200, 250)])
    }

    @Test func selectorThrowFails() {
        let source = scheduler.createHotObservable([.next(210, 1)])
        let result = scheduler.start { source.flatMap { _ -> Observable<Int> in throw TestError("selector") } }
        #expect(result.events == [.error(210, TestError("selector"))])
    }

    @Test func disposeReleasesInnerSubscriptions() {
        let source = scheduler.createHotObservable([.next(210, 1)])
        let inner = scheduler.createColdObservable([.next(500, 1)])
        _ = scheduler.start(disposed: 300) { source.flatMap { _ in inner } }
        #expect(inner.subscriptions == [Subscription(210, 300)])
    }

    @Test func flatMapOfSinglesJust() {
        let result = TestScheduler().start { Observable.from([1, 2, 3]).flatMap { Single.just($0 * 2) } }
        #expect(result.elements == [2, 4, 6])
    }

    @Test func mergeOfSeveral() {
        let a = scheduler.createHotObservable([.next(210, 1), .completed(250, Int.self)])
        let b = scheduler.createHotObservable([.next(220, 2), .completed(300, Int.self)])
        let result = scheduler.start { Observable.merge(a.asObservable(), b.asObservable()) }
        #expect(result.events == [.next(210, 1), .next(220, 2), .completed(300)])
    }

    @Test func mergeMaxConcurrentQueues() {
        let a = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let b = scheduler.createColdObservable([.next(10, 2), .completed(20, Int.self)])
        let result = scheduler.start { Observable.from([a.asObservable(), b.asObservable()]).merge(maxConcurrent: 1) }
        #expect(result.events == [.next(210, 1), .next(230, 2), .completed(240)])
    }

    @Test func concatRunsOneAfterAnother() {
        let a = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let b = scheduler.createColdObservable([.next(10, 2), .completed(20, Int.self)])
        let result = scheduler.start { Observable.concat(a.asObservable(), b.asObservable()) }
        #expect(result.events == [.next(210, 1), .next(230, 2), .completed(240)])
        #expect(b.subscriptions == [Subscription(220, 240)])
    }

    @Test func switchLatestFollowsNewest() {
        let a = scheduler.createColdObservable([.next(10, 1), .next(100, 9)])
        let b = scheduler.createColdObservable([.next(10, 2)])
        let outer = scheduler.createHotObservable([.next(210, a.asObservable()), .next(250, b.asObservable())])
        let result = scheduler.start { outer.switchLatest() }
        #expect(result.events == [.next(220, 1), .next(260, 2)])
        #expect(a.subscriptions == [Subscription(210, 250)])
    }
}

@Suite("Combining operators")
struct CombiningOperatorTests {
    let scheduler = TestScheduler()

    @Test func combineLatestWaitsForAllThenCombines() {
        let a = scheduler.createHotObservable([.next(210, 1), .next(230, 3), .completed(300, Int.self)])
        let b = scheduler.createHotObservable([.next(220, 10), .next(240, 20), .completed(310, Int.self)])
        let result = scheduler.start { Observable.combineLatest(a, b) { $0 + $1 } }
        #expect(result.events == [.next(220, 11), .next(230, 13), .next(240, 23), .completed(310)])
    }

    @Test func combineLatestCompletesWhenASourceEndsEmpty() {
        let a = scheduler.createHotObservable([.completed(220, Int.self)])
        let b = scheduler.createHotObservable([.next(210, 1)])
        let result = scheduler.start { Observable.combineLatest(a, b) { $0 + $1 } }
        #expect(result.events == [.completed(220)])
        #expect(b.subscriptions == [Subscription(200, 220)])
    }

    @Test func combineLatestOfTwoFailsWhenItsSelectorThrowsAndEndsBothSources() {
        struct Refused: Error {}
        let a = scheduler.createHotObservable([.next(210, 1), .next(230, 3), .next(250, 5)])
        let b = scheduler.createHotObservable([.next(220, 10), .next(240, 20)])
        let result = scheduler.start {
            Observable.combineLatest(a, b) { first, second -> Int in
                guard first < 3 else { throw Refused() }
                return first + second
            }
        }
        #expect(result.events.count == 2)
        #expect(result.events.first == .next(220, 11))
        #expect(result.events.last?.time == 230)
        #expect(a.subscriptions == [Subscription(200, 230)])
        #expect(b.subscriptions == [Subscription(200, 230)])
    }

    @Test func combineLatestOfTwoDeliversReentrantEventsInOrder() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        let seen = Locked<[Int]>([])
        let subscription = Observable.combineLatest(first, second) { $0 * 100 + $1 }.subscribe(onNext: { value in
            seen.withLock { $0.append(value) }
            // Re-entrant: emitted while this value is being delivered; delivered after it.
            if value == 101 { second.onNext(2) }
        })
        first.onNext(1)
        second.onNext(1)
        first.onNext(3)
        subscription.dispose()
        #expect(seen.withLock { $0 } == [101, 102, 302])
    }

    @Test func combineLatestArrayAndThreeWay() {
        let result = TestScheduler().start {
            Observable.combineLatest(Observable.just(1), Observable.just(2), Observable.just(3)) { [$0, $1, $2] }
        }
        #expect(result.elements == [[1, 2, 3]])
        let arrays = TestScheduler().start { Observable<[Int]>.combineLatest([Observable.just(1), .just(2)]) }
        #expect(arrays.elements == [[1, 2]])
    }

    @Test func zipPairsInOrder() {
        let a = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240, Int.self)])
        let b = scheduler.createHotObservable([.next(215, 10), .next(250, 20), .completed(260, Int.self)])
        let result = scheduler.start { Observable.zip(a, b) { $0 + $1 } }
        #expect(result.events == [.next(215, 11), .next(250, 22), .completed(260)])
    }

    @Test func zipCompletesWhenACompletedSourceIsDrained() {
        let a = scheduler.createHotObservable([.next(210, 1), .completed(220, Int.self)])
        let b = scheduler.createHotObservable([.next(230, 10), .next(240, 20)])
        let result = scheduler.start { Observable.zip(a, b) { $0 + $1 } }
        #expect(result.events == [.next(230, 11), .completed(230)])
        #expect(b.subscriptions == [Subscription(200, 230)])
    }

    @Test func withLatestFromSamples() {
        let a = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .next(250, 3), .completed(300, Int.self)])
        let b = scheduler.createHotObservable([.next(220, "x"), .next(240, "y"), .completed(245, String.self)])
        let result = scheduler.start { a.withLatestFrom(b) { "\($0)\($1)" } }
        #expect(result.events == [.next(230, "2x"), .next(250, "3y"), .completed(300)])
        #expect(b.subscriptions == [Subscription(200, 245)])
    }

    @Test func ambPicksTheFirstToEmit() {
        let a = scheduler.createHotObservable([.next(230, 1), .completed(300, Int.self)])
        let b = scheduler.createHotObservable([.next(220, 2), .completed(250, Int.self)])
        let result = scheduler.start { a.amb(b) }
        #expect(result.events == [.next(220, 2), .completed(250)])
        #expect(a.subscriptions == [Subscription(200, 220)])
        #expect(b.subscriptions == [Subscription(200, 250)])
    }
}
