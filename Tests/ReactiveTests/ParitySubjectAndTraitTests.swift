import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("AsyncSubject, trait factories and async bridges")
struct ParitySubjectAndTraitTests {
    let scheduler = TestScheduler()

    @Test func asyncSubjectEmitsOnlyTheLastElementAtCompletion() {
        let subject = AsyncSubject<Int>()
        scheduler.scheduleAt(210) { subject.onNext(1) }
        scheduler.scheduleAt(220) { subject.onNext(2) }
        scheduler.scheduleAt(300) { subject.onCompleted() }
        scheduler.scheduleAt(310) { subject.onNext(3) }
        let early = scheduler.start { subject.asObservable() }
        #expect(early.events == [.next(300, 2), .completed(300)])
        let late = scheduler.createObserver(Int.self)
        _ = subject.subscribe(late)
        #expect(late.events == [.next(1000, 2), .completed(1000)])
    }

    @Test func asyncSubjectForwardsOnlyTheError() {
        let subject = AsyncSubject<Int>()
        scheduler.scheduleAt(210) { subject.onNext(1) }
        scheduler.scheduleAt(220) { subject.onError(TestError()) }
        let result = scheduler.start { subject.asObservable() }
        #expect(result.events == [.error(220, TestError())])
        let late = scheduler.createObserver(Int.self)
        _ = subject.subscribe(late)
        #expect(late.events == [.error(1000, TestError())])
    }

    @Test func asyncSubjectEmptyCompletionHasNoElement() {
        let subject = AsyncSubject<Int>()
        scheduler.scheduleAt(220) { subject.onCompleted() }
        let result = scheduler.start { subject.asObservable() }
        #expect(result.events == [.completed(220)])
    }

    @Test func asyncSubjectUnsubscribedObserverGetsNothing() {
        let subject = AsyncSubject<Int>()
        scheduler.scheduleAt(210) { subject.onNext(1) }
        scheduler.scheduleAt(300) { subject.onCompleted() }
        let result = scheduler.start(disposed: 250) { subject.asObservable() }
        #expect(result.events.isEmpty)
        #expect(!subject.hasObservers)
    }

    @Test func traitUsingDisposesTheResourceWhenTheTraitEnds() {
        let log = Log()
        @Sendable func resource(_ name: String) -> SerialDisposable {
            let resource = SerialDisposable()
            resource.disposable = Disposables.create { log.append("\(name) disposed") }
            return resource
        }
        _ = Single.using({ resource("single") }, singleFactory: { _ in Single.just(1) }).subscribe { _ in
            log.append("single value")
        }
        _ = Maybe<Int>.using({ resource("maybe") }, maybeFactory: { _ in .empty() }).subscribe(onCompleted: {
            log.append("maybe empty")
        })
        _ = Completable.using({ resource("completable") }, completableFactory: { _ in .error(TestError()) })
            .subscribe(onError: { _ in log.append("completable error") })
        #expect(
            log.entries == [
                "single value", "single disposed", "maybe empty", "maybe disposed", "completable error",
                "completable disposed",
            ])
    }

    @Test func traitUsingDisposalReleasesTheResource() {
        let disposed = Locked(false)
        let resource = SerialDisposable()
        resource.disposable = Disposables.create { disposed.withLock { $0 = true } }
        let subscription = Single<Int>.using({ resource }, singleFactory: { _ in .never() }).subscribe { _ in }
        #expect(!disposed.withLock { $0 })
        subscription.dispose()
        #expect(disposed.withLock { $0 })
    }

    @Test func traitDeferredBuildsPerSubscription() {
        let built = Locked(0)
        let maybe = Maybe<Int>.deferred {
            built.withLock { $0 += 1 }
            return .just(built.withLock { $0 })
        }
        let completable = Completable.deferred { throw TestError("factory") }
        let values = Log()
        maybe.subscribe(onSuccess: { values.append("\($0)") })
        maybe.subscribe(onSuccess: { values.append("\($0)") })
        completable.subscribe(onError: { values.append("\($0)") })
        #expect(values.entries == ["1", "2", "factory"])
    }

    @Test func maybeFlatMapChainsValuesAndSkipsEmpty() {
        let log = Log()
        Maybe.just(2).flatMap { Maybe.just($0 * 10) }.subscribe(onSuccess: { log.append("\($0)") })
        Maybe<Int>.empty().flatMap { Maybe.just($0 * 10) }.subscribe(onCompleted: { log.append("empty") })
        Maybe.just(2).flatMap { _ in Maybe<Int>.empty() }.subscribe(onCompleted: { log.append("inner empty") })
        Maybe.just(2).flatMap { _ -> Maybe<Int> in throw TestError("sel") }.subscribe(onError: {
            log.append("\($0)")
        })
        #expect(log.entries == ["20", "empty", "inner empty", "sel"])
    }

    @Test func maybeValueAwaitsTheOutcome() async throws {
        #expect(try await Maybe.just(3).value == 3)
        #expect(try await Maybe<Int>.empty().value == nil)
        await #expect(throws: TestError.self) { try await Maybe<Int>.error(TestError()).value }
    }

    @Test func asyncSequenceBecomesAnObservable() async throws {
        let stream = AsyncStream<Int> { continuation in
            for value in 1...3 { continuation.yield(value) }
            continuation.finish()
        }
        #expect(try await stream.asObservable().toArray().value == [1, 2, 3])
    }

    @Test func throwingAsyncSequenceFailsTheObservable() async {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: TestError("stream"))
        }
        let events = try? await stream.asObservable().materialize().toArray().value
        #expect(events?.count == 2)
        #expect(events?.first?.element == 1)
        #expect((events?.last?.error as? TestError) == TestError("stream"))
    }

    @Test func disposingTheObservableCancelsTheIteration() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let terminated = AsyncStream<Void>.makeStream()
        continuation.onTermination = { _ in terminated.continuation.yield() }
        let received = Log()
        let subscription = stream.asObservable().subscribe(onNext: { received.append("\($0)") })
        continuation.yield(1)
        subscription.dispose()
        for await _ in terminated.stream { break }
        #expect(received.entries.count <= 1)
    }
}
