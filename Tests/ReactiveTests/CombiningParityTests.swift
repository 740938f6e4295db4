import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Tuple combinators and zip of more sources")
struct CombiningParityTests {
    let scheduler = TestScheduler()

    @Test func combineLatestWithoutSelectorEmitsTuples() {
        let a = scheduler.createHotObservable([.next(210, 1), .next(230, 3), .completed(300, Int.self)])
        let b = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(310, String.self)])
        let result = scheduler.start { Observable.combineLatest(a, b).map { "\($0)\($1)" } }
        #expect(result.events == [.next(220, "1a"), .next(230, "3a"), .next(240, "3b"), .completed(310)])
        #expect(a.subscriptions == [Subscription(200, 300)])
        #expect(b.subscriptions == [Subscription(200, 310)])
    }

    @Test func combineLatestOfThreeAndFourTuples() {
        let a = scheduler.createHotObservable([.next(210, 1), .completed(300, Int.self)])
        let b = scheduler.createHotObservable([.next(220, 2), .completed(300, Int.self)])
        let c = scheduler.createHotObservable([.next(230, 3), .error(240, TestError())])
        let three = scheduler.start { Observable.combineLatest(a, b, c).map { $0 + $1 + $2 } }
        #expect(three.events == [.next(230, 6), .error(240, TestError())])
        let scheduler2 = TestScheduler()
        let d = scheduler2.createHotObservable([.next(210, 1), .next(220, 10), .completed(300, Int.self)])
        let four = scheduler2.start {
            Observable.combineLatest(d, Observable.just(2), Observable.just(3), Observable.just(4)).map {
                $0 * $1 * $2 * $3
            }
        }
        #expect(four.events == [.next(210, 24), .next(220, 240), .completed(300)])
    }

    @Test func zipWithoutSelectorPairsInOrder() {
        let a = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230, Int.self)])
        let b = scheduler.createHotObservable([.next(240, "a"), .next(250, "b"), .next(260, "c")])
        let result = scheduler.start { Observable.zip(a, b).map { "\($0)\($1)" } }
        #expect(result.events == [.next(240, "1a"), .next(250, "2b"), .completed(250)])
        #expect(b.subscriptions == [Subscription(200, 250)])
    }

    @Test func zipOfThreeAndFour() {
        let a = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300, Int.self)])
        let b = scheduler.createHotObservable([.next(215, 10), .next(225, 20), .completed(300, Int.self)])
        let c = scheduler.createHotObservable([.next(230, 100), .error(240, TestError())])
        let three = scheduler.start { Observable.zip(a, b, c).map { $0 + $1 + $2 } }
        #expect(three.events == [.next(230, 111), .error(240, TestError())])
        #expect(a.subscriptions == [Subscription(200, 240)])
        let four = TestScheduler().start {
            Observable.zip(
                Observable.of(1, 2), Observable.of(3, 4), Observable.of(5, 6), Observable.of(7, 8, 9)
            ) { "\($0)\($1)\($2)\($3)" }
        }
        #expect(four.elements == ["1357", "2468"])
        #expect(four.events.last?.value == .completed)
    }

    @Test func singleZipSucceedsWithBothValues() {
        let a = scheduler.createColdObservable([.next(10, 1), .completed(10, Int.self)])
        let b = scheduler.createColdObservable([.next(20, "x"), .completed(20, String.self)])
        let result = scheduler.start { Single.zip(a.asSingle(), b.asSingle()).map { "\($0)\($1)" }.asObservable() }
        #expect(result.events == [.next(220, "1x"), .completed(220)])
    }

    @Test func singleZipFailsFastAndDisposesTheOther() {
        let a = scheduler.createColdObservable([.next(30, 1), .completed(30, Int.self)])
        let b = scheduler.createColdObservable([.error(5, TestError(), String.self)])
        let result = scheduler.start { Single.zip(a.asSingle(), b.asSingle()).map { "\($0)\($1)" }.asObservable() }
        #expect(result.events == [.error(205, TestError())])
        #expect(a.subscriptions == [Subscription(200, 205)])
    }

    @Test func singleZipOfACollectionKeepsOrder() async throws {
        let values = try await Single.zip([Single.just(1), Single.just(2), Single.just(3)]).value
        #expect(values == [1, 2, 3])
        let empty = try await Single.zip([Single<Int>]()).value
        #expect(empty.isEmpty)
        let triple = try await Single.zip(Single.just(1), Single.just("b"), Single.just(true)).value
        #expect(triple.0 == 1 && triple.1 == "b" && triple.2)
    }
}
