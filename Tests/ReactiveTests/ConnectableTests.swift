import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("publish, replay, multicast and refCount")
struct ConnectableTests {
    let scheduler = TestScheduler()

    func source() -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(260, 4), .completed(300, Int.self),
        ])
    }

    @Test func publishDeliversNothingUntilConnected() {
        let source = source()
        let published = source.publish()
        scheduler.scheduleAt(215) { published.connect() }
        let result = scheduler.start { published.asObservable() }
        #expect(result.events == [.next(220, 2), .next(230, 3), .next(260, 4), .completed(300)])
        #expect(source.subscriptions == [Subscription(215, 300)])
    }

    @Test func disposingTheConnectionUnsubscribesAndAllowsReconnecting() {
        let source = source()
        let published = source.publish()
        let connection = Locked<(any Disposable)?>(nil)
        scheduler.scheduleAt(215) { connection.withLock { $0 = published.connect() } }
        scheduler.scheduleAt(225) { connection.withLock { $0 }?.dispose() }
        scheduler.scheduleAt(250) { _ = published.connect() }
        let result = scheduler.start { published.asObservable() }
        #expect(result.events == [.next(220, 2), .next(260, 4), .completed(300)])
        #expect(source.subscriptions == [Subscription(215, 225), Subscription(250, 300)])
    }

    @Test func connectTwiceSharesOneSubscription() {
        let source = source()
        let published = source.publish()
        scheduler.scheduleAt(205) {
            published.connect()
            published.connect()
        }
        _ = scheduler.start { published.asObservable() }
        #expect(source.subscriptions == [Subscription(205, 300)])
    }

    @Test func replayGivesLateObserversTheBuffer() {
        let source = source()
        let replayed = source.replay(1)
        scheduler.scheduleAt(205) { replayed.connect() }
        let result = scheduler.start(subscribed: 225) { replayed.asObservable() }
        #expect(result.events == [.next(225, 2), .next(230, 3), .next(260, 4), .completed(300)])
    }

    @Test func replayAllReplaysEverything() {
        let source = source()
        let replayed = source.replayAll()
        scheduler.scheduleAt(205) { replayed.connect() }
        let result = scheduler.start(subscribed: 235) { replayed.asObservable() }
        #expect(result.events == [.next(235, 1), .next(235, 2), .next(235, 3), .next(260, 4), .completed(300)])
    }

    @Test func refCountConnectsForTheFirstAndDisconnectsAfterTheLast() {
        let source = source()
        let shared = source.publish().refCount()
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        let third = scheduler.createObserver(Int.self)
        let subscriptions = Locked<[String: any Disposable]>([:])
        scheduler.scheduleAt(200) { subscriptions.withLock { $0["first"] = shared.subscribe(first) } }
        scheduler.scheduleAt(215) { subscriptions.withLock { $0["second"] = shared.subscribe(second) } }
        scheduler.scheduleAt(225) { subscriptions.withLock { $0["first"] }?.dispose() }
        scheduler.scheduleAt(235) { subscriptions.withLock { $0["second"] }?.dispose() }
        scheduler.scheduleAt(250) { subscriptions.withLock { $0["third"] = shared.subscribe(third) } }
        scheduler.start()
        #expect(first.events == [.next(210, 1), .next(220, 2)])
        #expect(second.events == [.next(220, 2), .next(230, 3)])
        #expect(third.events == [.next(260, 4), .completed(300)])
        #expect(source.subscriptions == [Subscription(200, 235), Subscription(250, 300)])
    }

    @Test func refCountForwardsErrors() {
        let source = scheduler.createHotObservable([.next(210, 1), .error(220, TestError())])
        let result = scheduler.start { source.publish().refCount() }
        #expect(result.events == [.next(210, 1), .error(220, TestError())])
        #expect(source.subscriptions == [Subscription(200, 220)])
    }

    @Test func multicastUsesTheGivenSubject() {
        let source = source()
        let subject = BehaviorSubject(value: 0)
        let multicast = source.multicast(subject)
        scheduler.scheduleAt(215) { multicast.connect() }
        let result = scheduler.start { multicast.asObservable() }
        #expect(result.events == [.next(200, 0), .next(220, 2), .next(230, 3), .next(260, 4), .completed(300)])
    }
}
