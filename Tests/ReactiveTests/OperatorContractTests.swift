import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

/// One operator applied to an `Int` source, for the checks every operator must pass.
struct UnaryCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// Whether a source error comes out as an `error` event at the same time.
    var forwardsError = true
    let apply: @Sendable (Observable<Int>, TestScheduler) -> Observable<Int>

    var testDescription: String { name }

    static let all: [UnaryCase] = [
        UnaryCase(name: "map") { s, _ in s.map { $0 * 2 } },
        UnaryCase(name: "compactMap") { s, _ in s.compactMap { $0 % 2 == 0 ? $0 : nil } },
        UnaryCase(name: "filter") { s, _ in s.filter { $0 > 0 } },
        UnaryCase(name: "flatMap") { s, _ in s.flatMap { Observable.just($0) } },
        UnaryCase(name: "flatMapFirst") { s, _ in s.flatMapFirst { Observable.just($0) } },
        UnaryCase(name: "flatMapLatest") { s, _ in s.flatMapLatest { Observable.just($0) } },
        UnaryCase(name: "concatMap") { s, _ in s.concatMap { Observable.just($0) } },
        UnaryCase(name: "merge") { s, _ in Observable.merge(s, .never()) },
        UnaryCase(name: "concat") { s, _ in s.concat(Observable.just(9)) },
        UnaryCase(name: "combineLatest") { s, _ in Observable.combineLatest(s, Observable.just(1)) { $0 + $1 } },
        UnaryCase(name: "withLatestFrom") { s, _ in s.withLatestFrom(Observable.just(1)) { $0 + $1 } },
        UnaryCase(name: "zip") { s, _ in Observable.zip(s, Observable.from(Array(0..<100))) { $0 + $1 } },
        UnaryCase(name: "amb") { s, _ in s.amb(Observable.never()) },
        UnaryCase(name: "startWith") { s, _ in s.startWith(0) },
        UnaryCase(name: "scan") { s, _ in s.scan(0) { $0 + $1 } },
        UnaryCase(name: "take") { s, _ in s.take(100) },
        UnaryCase(name: "take(until:)") { s, _ in s.take(until: Observable<Int>.never()) },
        UnaryCase(name: "take(until: predicate)") { s, _ in s.take(until: { $0 > 1000 }) },
        UnaryCase(name: "skip") { s, _ in s.skip(1) },
        UnaryCase(name: "distinctUntilChanged") { s, _ in s.distinctUntilChanged() },
        UnaryCase(name: "do") { s, _ in s.do(onNext: { _ in }) },
        UnaryCase(name: "catch(rethrow)") { s, _ in s.catch { Observable.error($0) } },
        UnaryCase(name: "retry(1)") { s, _ in s.retry(1) },
        UnaryCase(name: "share") { s, _ in s.share(replay: 1) },
        UnaryCase(name: "timeout") { s, sch in s.timeout(.seconds(500), scheduler: sch) },
        UnaryCase(name: "delay") { s, sch in s.delay(.seconds(5), scheduler: sch) },
        UnaryCase(name: "debounce") { s, sch in s.debounce(.seconds(5), scheduler: sch) },
        UnaryCase(name: "throttle") { s, sch in s.throttle(.seconds(5), scheduler: sch) },
        UnaryCase(name: "observe(on:)") { s, _ in s.observe(on: ImmediateScheduler.instance) },
        UnaryCase(name: "subscribe(on:)") { s, _ in s.subscribe(on: ImmediateScheduler.instance) },
        UnaryCase(name: "ignoreElements") { s, _ in s.ignoreElements().asCompletable().andThen(Observable<Int>.empty())
        },
        UnaryCase(name: "toArray") { s, _ in s.toArray().asObservable().map(\.count) },
        UnaryCase(name: "materialize", forwardsError: false) { s, _ in s.materialize().map { _ in 1 } },
        UnaryCase(name: "retry(when:)") { s, _ in
            s.retry(when: { errors in errors.flatMap { Observable<Int>.error($0) } })
        },
        UnaryCase(name: "take(while:)") { s, _ in s.take(while: { $0 < 1000 }) },
        UnaryCase(name: "skip(while:)") { s, _ in s.skip(while: { $0 < 0 }) },
        UnaryCase(name: "skip(until:)") { s, _ in s.skip(until: Observable.just(0)) },
        UnaryCase(name: "combineLatest(tuple)") { s, _ in
            Observable.combineLatest(s, Observable.just(1)).map { $0 + $1 }
        },
        UnaryCase(name: "zip(tuple)") { s, _ in Observable.zip(s, Observable.from(Array(0..<100))).map { $0 + $1 } },
        UnaryCase(name: "zip(3)") { s, _ in
            Observable.zip(s, Observable.from(Array(0..<100)), Observable.from(Array(0..<100))) { $0 + $1 + $2 }
        },
        UnaryCase(name: "reduce") { s, _ in s.reduce(0, accumulator: +) },
        UnaryCase(name: "buffer") { s, sch in s.buffer(timeSpan: .seconds(30), count: 2, scheduler: sch).map(\.count) },
        UnaryCase(name: "window") { s, sch in
            s.window(timeSpan: .seconds(30), count: 2, scheduler: sch).flatMap { $0 }
        },
        UnaryCase(name: "takeLast") { s, _ in s.takeLast(2) },
        UnaryCase(name: "groupBy") { s, _ in s.groupBy { $0 % 2 }.flatMap { $0.asObservable() } },
        UnaryCase(name: "publish.refCount") { s, _ in s.publish().refCount() },
        UnaryCase(name: "replay.refCount") { s, _ in s.replay(1).refCount() },
        UnaryCase(name: "withUnretained") { s, _ in s.withUnretained(ContractOwner.shared).map { $1 } },
        UnaryCase(name: "enumerated") { s, _ in s.enumerated().map(\.element) },
        UnaryCase(name: "delaySubscription") { s, sch in s.delaySubscription(.zero, scheduler: sch) },
        UnaryCase(name: "ifEmpty(default:)") { s, _ in s.ifEmpty(default: 0) },
        UnaryCase(name: "ifEmpty(switchTo:)") { s, _ in s.ifEmpty(switchTo: Observable.just(0)) },
        UnaryCase(name: "dematerialize") { s, _ in s.materialize().dematerialize() },
        UnaryCase(name: "debug") { s, _ in s.debug("contract", log: { _ in }) },
    ]
}

/// An object that outlives every test, for `withUnretained`.
final class ContractOwner: Sendable {
    static let shared = ContractOwner()
}

@Suite("Every operator honours the contract")
struct OperatorContractTests {
    @Test("an error from the source ends the output and disposes the source", arguments: UnaryCase.all)
    func errorPropagation(_ operatorCase: UnaryCase) {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(210, 2), .error(250, TestError("boom")), .next(260, 4),
        ])
        let result = scheduler.start { operatorCase.apply(source.asObservable(), scheduler) }
        if operatorCase.forwardsError {
            #expect(result.events.last == .error(250, TestError("boom"), Int.self))
        } else {
            #expect(result.events.last == .completed(250, Int.self))
        }
        #expect(result.events.allSatisfy { $0.time <= 250 })
        #expect(source.subscriptions == [Subscription(200, 250)])
    }

    @Test("disposal unsubscribes the source once and stops delivery", arguments: UnaryCase.all)
    func disposal(_ operatorCase: UnaryCase) {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([
            .next(210, 2), .next(300, 3), .next(500, 5), .completed(600, Int.self),
        ])
        let result = scheduler.start(disposed: 400) { operatorCase.apply(source.asObservable(), scheduler) }
        #expect(result.events.allSatisfy { $0.time <= 400 })
        #expect(source.subscriptions == [Subscription(200, 400)])
    }

    @Test("completion of the source ends the output and unsubscribes", arguments: UnaryCase.all)
    func completion(_ operatorCase: UnaryCase) {
        let scheduler = TestScheduler()
        let source = scheduler.createHotObservable([.next(210, 2), .completed(300, Int.self)])
        let cases: Set<String> = ["merge", "amb", "timeout"]
        let result = scheduler.start { operatorCase.apply(source.asObservable(), scheduler) }
        #expect(source.subscriptions == [Subscription(200, 300)])
        if !cases.contains(operatorCase.name) {
            let last = result.events.last
            #expect(last?.value == .completed, "\(operatorCase.name) should complete")
            // Delay shifts completion by its due time; every other operator completes at once.
            #expect(last?.time == (operatorCase.name == "delay" ? 305 : 300))
        }
    }

    @Test("the output follows next* (error | completed)", arguments: UnaryCase.all)
    func grammar(_ operatorCase: UnaryCase) {
        for ending in [Event<Int>.error(TestError("boom")), .completed] {
            let scheduler = TestScheduler()
            let source = scheduler.createHotObservable([
                .next(210, 1), .next(220, 2), Recorded(time: 250, value: ending), .next(260, 4),
                .completed(270, Int.self), .error(280, TestError("late")),
            ])
            let result = scheduler.start { operatorCase.apply(source.asObservable(), scheduler) }
            let stops = result.events.enumerated().filter { $0.element.value.isStopEvent }
            #expect(stops.count <= 1, "\(operatorCase.name): more than one terminal event")
            if let stop = stops.first {
                #expect(stop.offset == result.events.count - 1, "\(operatorCase.name): events after the end")
            }
            #expect(result.events.allSatisfy { $0.time <= 255 }, "\(operatorCase.name): events after the source ended")
        }
    }
}
