import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Synchronization
import Testing

@Suite("Subjects and relays")
struct SubjectTests {
    @Test func publishSubjectSendsOnlyFutureEvents() {
        let subject = PublishSubject<Int>()
        let log = Log()
        subject.onNext(0)
        let subscription = subject.subscribe(onNext: { log.append("\($0)") }, onCompleted: { log.append("done") })
        subject.onNext(1)
        subject.onCompleted()
        subject.onNext(2)
        subscription.dispose()
        #expect(log.entries == ["1", "done"])
    }

    @Test func lateSubscriberToAStoppedSubjectGetsTheTerminalEvent() {
        let subject = PublishSubject<Int>()
        subject.onError(TestError())
        let log = Log()
        subject.subscribe(onError: { log.append("\($0)") })
        #expect(log.entries == ["test error"])
    }

    @Test func disposedObserverReceivesNothingMore() {
        let subject = PublishSubject<Int>()
        let log = Log()
        let subscription = subject.subscribe(onNext: { log.append("\($0)") })
        subject.onNext(1)
        subscription.dispose()
        subject.onNext(2)
        #expect(log.entries == ["1"])
        #expect(!subject.hasObservers)
    }

    @Test func behaviorSubjectReplaysCurrentValue() throws {
        let subject = BehaviorSubject(value: 1)
        subject.onNext(2)
        let log = Log()
        subject.subscribe(onNext: { log.append("\($0)") })
        subject.onNext(3)
        #expect(log.entries == ["2", "3"])
        #expect(try subject.value() == 3)
        subject.onError(TestError())
        #expect(throws: TestError.self) { try subject.value() }
    }

    @Test func replaySubjectReplaysBuffer() {
        let subject = ReplaySubject<Int>.create(bufferSize: 2)
        for value in 1...4 { subject.onNext(value) }
        subject.onCompleted()
        let log = Log()
        subject.subscribe(onNext: { log.append("\($0)") }, onCompleted: { log.append("done") })
        #expect(log.entries == ["3", "4", "done"])

        let unbound = ReplaySubject<Int>.createUnbound()
        for value in 1...4 { unbound.onNext(value) }
        let all = Log()
        unbound.subscribe(onNext: { all.append("\($0)") })
        #expect(all.entries == ["1", "2", "3", "4"])
    }

    @Test func reentrantEventsAreDeliveredAfterTheCurrentOne() {
        let subject = PublishSubject<Int>()
        let log = Log()
        subject.subscribe(onNext: { value in
            log.append("start \(value)")
            if value == 1 { subject.onNext(2) }
            log.append("end \(value)")
        })
        subject.onNext(1)
        #expect(log.entries == ["start 1", "end 1", "start 2", "end 2"])
    }

    @Test func relaysNeverTerminate() {
        let relay = BehaviorRelay(value: "a")
        let log = Log()
        relay.subscribe(onNext: { log.append($0) })
        relay.accept("b")
        #expect(relay.value == "b")
        let publish = PublishRelay<String>()
        publish.subscribe(onNext: { log.append($0) })
        publish.accept("c")
        Observable.just("d").concat(Observable.error(TestError())).bind(to: relay)
        relay.accept("e")
        #expect(log.entries == ["a", "b", "c", "d", "e"])
    }

    @Test func bindToObserverForwardsAllEvents() {
        let subject = PublishSubject<Int>()
        let log = Log()
        subject.subscribe(onNext: { log.append("\($0)") }, onCompleted: { log.append("done") })
        Observable.from([1, 2]).bind(to: subject)
        #expect(log.entries == ["1", "2", "done"])
    }
}
