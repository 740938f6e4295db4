import RemoteModalAction
import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Synchronization
import Testing

/// Counts how often a work factory ran.
final class Calls: Sendable {
    private let count = Locked(0)
    func hit() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

@Suite("Action: the original's test matrix on virtual time")
struct ActionTests {
    let scheduler = TestScheduler()

    func record<T: Sendable>(_ source: Observable<T>) -> TestableObserver<T> {
        let observer = scheduler.createObserver(T.self)
        _ = source.subscribe(observer)
        return observer
    }

    @Test func singleElementThroughExecute() {
        let calls = Calls()
        let action = Action<String, String> { input in
            calls.hit()
            return .just(input.uppercased())
        }
        let elements = record(action.elements)
        let executing = record(action.executing)
        let enabled = record(action.enabled)
        let result = record(action.execute("a"))
        #expect(result.elements == ["A"])
        #expect(result.events.last?.value == .completed)
        #expect(elements.elements == ["A"])
        #expect(executing.elements == [false, true, false])
        #expect(enabled.elements == [true, false, true])
        #expect(calls.value == 1)
    }

    @Test func multiElementThroughInputs() {
        let action = Action<Int, Int> { .from([$0, $0 + 1, $0 + 2]) }
        let elements = record(action.elements)
        action.inputs.onNext(10)
        action.inputs.onNext(20)
        #expect(elements.elements == [10, 11, 12, 20, 21, 22])
    }

    @Test func errorActionReportsUnderlyingError() {
        let action = Action<Void, Int> { .error(TestError("work")) }
        let errors = record(action.errors.map { "\($0)" })
        let underlying = record(action.underlyingError.map { "\($0)" })
        let executing = record(action.executing)
        let result = record(action.execute())
        #expect(errors.elements == ["underlying error: work"])
        #expect(underlying.elements == ["work"])
        #expect(executing.elements == [false, true, false])
        #expect(result.events.count == 1)
        #expect(result.events.first?.value.error != nil)
    }

    @Test func disabledActionRefusesWithoutCallingTheFactory() {
        let calls = Calls()
        let action = Action<Void, Int>(enabledIf: .just(false)) {
            calls.hit()
            return .just(1)
        }
        let errors = record(action.errors.map { "\($0)" })
        let enabled = record(action.enabled)
        let result = record(action.execute())
        #expect(calls.value == 0)
        #expect(errors.elements == ["not enabled"])
        #expect(enabled.elements == [false])
        #expect(result.events.first?.value.error.map { "\($0)" } == "not enabled")
    }

    @Test func executeWhileExecutingIsRefused() {
        let calls = Calls()
        let work = scheduler.createColdObservable([.next(10, 1), .completed(20, Int.self)])
        let action = Action<Void, Int> { _ in
            calls.hit()
            return work.asObservable()
        }
        let errors = record(action.errors.map { "\($0)" })
        let executing = scheduler.createObserver(Bool.self)
        _ = action.executing.subscribe(executing)
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        let third = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { _ = action.execute().subscribe(first) }
        scheduler.scheduleAt(110) { _ = action.execute().subscribe(second) }
        scheduler.scheduleAt(200) { _ = action.execute().subscribe(third) }
        scheduler.start()
        #expect(calls.value == 2)
        #expect(first.events == [.next(110, 1), .completed(120)])
        #expect(second.events.count == 1 && second.events[0].value.error != nil)
        #expect(third.events == [.next(210, 1), .completed(220)])
        #expect(errors.elements == ["not enabled"])
        #expect(executing.events.map(\.time) == [0, 100, 120, 200, 220])
        #expect(executing.elements == [false, true, false, true, false])
    }

    @Test func enabledFollowsEnabledIfAndExecuting() {
        let gate = BehaviorRelay(value: false)
        let action = Action<Void, Void>(enabledIf: gate.asObservable()) { .just(()) }
        let enabled = record(action.enabled)
        gate.accept(true)
        gate.accept(true)
        gate.accept(false)
        #expect(enabled.elements == [false, true, false])
    }

    @Test func lateSubscribersToAnExecutionGetItsElements() {
        let action = Action<Void, Int> { .from([1, 2]) }
        let execution = action.execute()
        let late = record(execution)
        #expect(late.elements == [1, 2])
    }

    @Test func completableActionReportsCompletions() {
        let action = CompletableAction<Int> { _ in Completable.empty() }
        let completions = record(action.completions.map { 1 })
        action.execute(1)
        action.execute(2)
        #expect(completions.elements == [1, 1])
    }

    @Test func upstreamNamesAreTheSameTypes() {
        let cocoa: CocoaAction = CocoaAction { .just(()) }
        let button: ButtonAction = cocoa
        let done = record(button.execute().map { "tapped" })
        #expect(done.events == [.next(0, "tapped"), .completed(0)])
        let save: CompletableAction<String> = CompletableAction { _ in Completable.error(TestError("disk")) }
        let errors = record(save.underlyingError.map { "\($0)" })
        save.execute("file")
        #expect(errors.elements == ["disk"])
    }

    @Test func singleAndMaybeFactories() {
        let single = Action<Int, Int> { Single.just($0 * 2) }
        #expect(record(single.execute(4)).elements == [8])
        let maybe = Action<Int, Int> { $0 > 0 ? Maybe.just($0) : Maybe.empty() }
        #expect(record(maybe.execute(0)).elements == [])
        #expect(record(maybe.execute(3)).elements == [3])
    }

    @Test func cancelEndsTheCurrentExecution() {
        let disposed = Calls()
        let action = Action<Void, Int> { _ in Observable<Int>.never().do(onDispose: { disposed.hit() }) }
        let executing = record(action.executing)
        let execution = record(action.execute())
        action.cancel()
        #expect(disposed.value == 1)
        #expect(executing.elements == [false, true, false])
        #expect(execution.events.last?.value == .completed)
        #expect(record(action.execute()).events.isEmpty)
    }

    @Test func releasingTheActionReleasesItsState() {
        let gate = PublishSubject<Bool>()
        weak var weakAction: Action<Void, Int>?
        do {
            let action = Action<Void, Int>(enabledIf: gate.asObservable()) { .just(1) }
            weakAction = action
            gate.onNext(true)
            _ = action.execute().subscribe()
        }
        #expect(weakAction == nil)
        #expect(!gate.hasObservers)
    }
}
