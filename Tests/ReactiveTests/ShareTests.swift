import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("share(replay:scope:)")
struct ShareTests {
    let scheduler = TestScheduler()

    @Test func oneSourceSubscriptionForManyObservers() {
        let source = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(30, Int.self)])
        let shared = source.share()
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = shared.subscribe(first) }
        scheduler.scheduleAt(215) { _ = shared.subscribe(second) }
        scheduler.start()
        #expect(first.events == [.next(210, 1), .next(220, 2), .completed(230)])
        #expect(second.events == [.next(220, 2), .completed(230)])
        #expect(source.subscriptions == [Subscription(200, 230)])
    }

    @Test func replayGivesLateObserversTheBuffer() {
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let shared = source.share(replay: 1)
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = shared.subscribe(early) }
        scheduler.scheduleAt(230) { _ = shared.subscribe(late) }
        scheduler.start()
        #expect(late.events == [.next(230, 2), .next(240, 3)])
    }

    @Test func whileConnectedDisconnectsWhenLastLeavesAndReconnects() {
        let source = scheduler.createColdObservable([.next(10, 1)])
        let shared = source.share(replay: 1, scope: .whileConnected)
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        let box = DisposableBox()
        scheduler.scheduleAt(200) { box.set(shared.subscribe(first)) }
        scheduler.scheduleAt(300) { box.dispose() }
        scheduler.scheduleAt(400) { _ = shared.subscribe(second) }
        scheduler.start()
        #expect(source.subscriptions == [Subscription(200, 300), Subscription(400)])
        #expect(second.events == [.next(410, 1)])
    }

    @Test func foreverKeepsTheReplayAfterTermination() {
        let source = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let shared = source.share(replay: 1, scope: .forever)
        let first = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = shared.subscribe(first) }
        scheduler.scheduleAt(400) { _ = shared.subscribe(late) }
        scheduler.start()
        #expect(late.events == [.next(400, 1), .completed(400)])
        #expect(source.subscriptions == [Subscription(200, 220)])
    }
}

/// Holds a disposable set later from a scheduled action.
final class DisposableBox: Sendable {
    private let inner = SerialDisposable()
    func set(_ disposable: any Disposable) { inner.disposable = disposable }
    func dispose() { inner.dispose() }
}
