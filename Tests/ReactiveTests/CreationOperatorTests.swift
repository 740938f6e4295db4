import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Synchronization
import Testing

@Suite("Creation operators")
struct CreationOperatorTests {
    @Test func justEmitsOneElementThenCompletes() {
        let result = TestScheduler().start { Observable.just(7) }
        #expect(result.events == [.next(200, 7), .completed(200)])
    }

    @Test func emptyCompletesAtOnce() {
        let result = TestScheduler().start { Observable<Int>.empty() }
        #expect(result.events == [.completed(200)])
    }

    @Test func neverEmitsNothing() {
        let result = TestScheduler().start { Observable<Int>.never() }
        #expect(result.events.isEmpty)
    }

    @Test func errorFailsAtOnce() {
        let result = TestScheduler().start { Observable<Int>.error(TestError()) }
        #expect(result.events == [.error(200, TestError())])
    }

    @Test func fromEmitsInOrder() {
        let result = TestScheduler().start { Observable.from([1, 2, 3]) }
        #expect(result.events == [.next(200, 1), .next(200, 2), .next(200, 3), .completed(200)])
    }

    @Test func fromStopsWhenDisposedMidway() {
        let received = Locked<[Int]>([])
        let holder = SingleAssignmentDisposable()
        holder.setDisposable(
            Observable.from(Array(1...10)).take(3).subscribe(onNext: { value in
                received.withLock { $0.append(value) }
            }))
        #expect(received.withLock { $0 } == [1, 2, 3])
    }

    @Test func createEnforcesTheGrammar() {
        let result = TestScheduler().start {
            Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onCompleted()
                observer.onNext(2)
                observer.onError(TestError())
                observer.onCompleted()
                return Disposables.create()
            }
        }
        #expect(result.events == [.next(200, 1), .completed(200)])
    }

    @Test func createDisposesItsResourceOnceOnCompletion() {
        let disposals = Locked(0)
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            return Disposables.create { disposals.withLock { $0 += 1 } }
        }.subscribe()
        subscription.dispose()
        subscription.dispose()
        #expect(disposals.withLock { $0 } == 1)
    }

    @Test func deferredBuildsPerSubscription() {
        let builds = Locked(0)
        let source = Observable<Int>.deferred {
            let count = builds.withLock { count -> Int in
                count += 1
                return count
            }
            return .just(count)
        }
        let scheduler = TestScheduler()
        let first = scheduler.start { source }
        let second = TestScheduler().start { source }
        #expect(first.elements == [1])
        #expect(second.elements == [2])
    }

    @Test func deferredFactoryErrorFailsTheSubscription() {
        let result = TestScheduler().start { Observable<Int>.deferred { throw TestError("factory") } }
        #expect(result.events == [.error(200, TestError("factory"))])
    }
}

/// A resource that counts its disposals.
final class CountingResource: Disposable {
    let disposals = Locked(0)
    func dispose() { disposals.withLock { $0 += 1 } }
    var count: Int { disposals.withLock { $0 } }
}

@Suite("using: the present-on-subscribe, dismiss-on-dispose backbone")
struct UsingTests {
    @Test func resourceDisposedOnCompletion() {
        let scheduler = TestScheduler()
        let resource = CountingResource()
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let result = scheduler.start {
            Observable.using({ resource }, observableFactory: { _ in source.asObservable() })
        }
        #expect(result.events == [.next(210, 1), .completed(220)])
        #expect(resource.count == 1)
        #expect(source.subscriptions == [Subscription(200, 220)])
    }

    @Test func resourceDisposedOnError() {
        let scheduler = TestScheduler()
        let resource = CountingResource()
        let source = scheduler.createColdObservable([.error(30, TestError(), Int.self)])
        let result = scheduler.start {
            Observable.using({ resource }, observableFactory: { _ in source.asObservable() })
        }
        #expect(result.events == [.error(230, TestError())])
        #expect(resource.count == 1)
    }

    @Test func resourceDisposedOnDispose() {
        let scheduler = TestScheduler()
        let resource = CountingResource()
        let created = Locked(0)
        let source = scheduler.createColdObservable([.next(10, 1), .next(900, 2)])
        let result = scheduler.start(disposed: 500) {
            Observable.using(
                {
                    created.withLock { $0 += 1 }
                    return resource
                }, observableFactory: { _ in source.asObservable() })
        }
        #expect(result.events == [.next(210, 1)])
        #expect(resource.count == 1)
        #expect(created.withLock { $0 } == 1)
        #expect(source.subscriptions == [Subscription(200, 500)])
    }

    @Test func resourceCreatedOnSubscribeNotBefore() {
        let created = Locked(0)
        let source = Observable<Int>.using(
            {
                created.withLock { $0 += 1 }
                return CountingResource()
            }, observableFactory: { _ in .never() })
        #expect(created.withLock { $0 } == 0)
        let first = source.subscribe()
        let second = source.subscribe()
        #expect(created.withLock { $0 } == 2)
        first.dispose()
        second.dispose()
    }

    @Test func factoryErrorsFailAndReleaseTheResource() {
        let resource = CountingResource()
        let result = TestScheduler().start {
            Observable<Int>.using({ resource }, observableFactory: { _ in throw TestError("factory") })
        }
        #expect(result.events == [.error(200, TestError("factory"))])
        #expect(resource.count == 1)
    }
}
