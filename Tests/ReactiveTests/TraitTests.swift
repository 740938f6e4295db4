import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Single, Maybe and Completable")
struct TraitTests {
    @Test func singleCreateReportsOnce() {
        let log = Log()
        Single<Int>.create { report in
            report(.success(1))
            report(.success(2))
            report(.failure(TestError()))
            return Disposables.create()
        }
        .subscribe(onSuccess: { log.append("success \($0)") }, onFailure: { log.append("\($0)") })
        #expect(log.entries == ["success 1"])
    }

    @Test func singleMapAndFlatMap() {
        let result = TestScheduler().start {
            Single.just(2).map { $0 * 3 }.flatMap { Single.just("\($0)") }.asObservable()
        }
        #expect(result.events == [.next(200, "6"), .completed(200)])
    }

    @Test func singleCatchAndDo() {
        let log = Log()
        let result = TestScheduler().start {
            Single<Int>.error(TestError()).do(onError: { _ in log.append("error") }).catch { _ in .just(5) }
                .asObservable()
        }
        #expect(result.elements == [5])
        #expect(log.entries == ["error"])
    }

    @Test func asSingleRequiresExactlyOne() {
        let none = TestScheduler().start { Observable<Int>.empty().asSingle().asObservable() }
        #expect(none.events == [.error(200, RxError.noElements)])
        let two = TestScheduler().start { Observable.from([1, 2]).asSingle().asObservable() }
        #expect(two.events == [.error(200, RxError.moreThanOneElement)])
        let one = TestScheduler().start { Observable.just(1).asSingle().asObservable() }
        #expect(one.events == [.next(200, 1), .completed(200)])
    }

    @Test func maybeOutcomes() {
        let log = Log()
        Maybe.just(1).subscribe(onSuccess: { log.append("value \($0)") }, onCompleted: { log.append("empty") })
        Maybe<Int>.empty().subscribe(onSuccess: { log.append("value \($0)") }, onCompleted: { log.append("empty") })
        Maybe<Int>.error(TestError()).subscribe(onError: { log.append("\($0)") })
        Observable.from([1, 2]).asMaybe().subscribe(onError: { log.append("\($0)") })
        #expect(log.entries == ["value 1", "empty", "test error", "moreThanOneElement"])
    }

    @Test func completableAndThen() {
        let result = TestScheduler().start { Completable.empty().andThen(Observable.just(1)) }
        #expect(result.events == [.next(200, 1), .completed(200)])
        let failed = TestScheduler().start { Completable.error(TestError()).andThen(Observable.just(1)) }
        #expect(failed.events == [.error(200, TestError())])
    }

    @Test func singleTimeoutOnVirtualTime() {
        let scheduler = TestScheduler()
        let result = scheduler.start { Single<Int>.never().timeout(.seconds(30), scheduler: scheduler).asObservable() }
        #expect(result.events == [.error(230, RxError.timeout)])
    }
}
