import Dispatch
import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Synchronization
import Testing

/// Records events and flags any concurrent or out-of-grammar call.
final class GrammarRecorder<Element: Sendable>: ObserverType {
    private let state = Locked<(events: [Event<Element>], inside: Bool, violations: Int)>(([], false, 0))
    private let busy = Atomic<Bool>(false)

    func on(_ event: Event<Element>) {
        if busy.exchange(true, ordering: .acquiringAndReleasing) {
            state.withLock { $0.violations += 1 }
        }
        state.withLock { state in
            if state.events.last?.isStopEvent == true { state.violations += 1 }
            state.events.append(event)
        }
        busy.store(false, ordering: .releasing)
    }

    var elements: [Element] { state.withLock { $0.events.compactMap(\.element) } }
    var terminated: Bool { state.withLock { $0.events.last?.isStopEvent == true } }
    var violations: Int { state.withLock { $0.violations } }
}

@Suite("Thread safety")
struct ConcurrencyTests {
    static let threads = 4
    static let perThread = 5_000

    @Test func publishSubjectHammeredFromSeveralThreads() {
        let subject = PublishSubject<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = subject.subscribe(recorder)
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for index in 0..<Self.perThread { subject.onNext(thread * Self.perThread + index) }
        }
        subject.onCompleted()
        subscription.dispose()
        let elements = recorder.elements
        #expect(elements.count == Self.threads * Self.perThread)
        #expect(Set(elements).count == elements.count)
        #expect(recorder.violations == 0)
        #expect(recorder.terminated)
        // Each thread's own elements keep their order.
        for thread in 0..<Self.threads {
            let mine = elements.filter { $0 / Self.perThread == thread }
            #expect(mine == mine.sorted())
        }
    }

    @Test func mergeOfSubjectsFedFromSeveralThreads() {
        let subjects = (0..<Self.threads).map { _ in PublishSubject<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = Observable.merge(subjects.map { $0.asObservable() }).subscribe(recorder)
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for index in 0..<Self.perThread { subjects[thread].onNext(thread * Self.perThread + index) }
            subjects[thread].onCompleted()
        }
        subscription.dispose()
        #expect(recorder.elements.count == Self.threads * Self.perThread)
        #expect(recorder.violations == 0)
        #expect(recorder.terminated)
    }

    @Test func disposeRacingWithDeliveryStopsDelivery() {
        for _ in 0..<50 {
            let subject = PublishSubject<Int>()
            let received = Atomic<Int>(0)
            let subscription = subject.map { $0 + 1 }.subscribe(onNext: { _ in
                received.add(1, ordering: .relaxed)
            })
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                for value in 0..<2_000 { subject.onNext(value) }
            }
            DispatchQueue.global().async(group: group) { subscription.dispose() }
            group.wait()
            let afterRace = received.load(ordering: .relaxed)
            for value in 0..<100 { subject.onNext(value) }
            #expect(received.load(ordering: .relaxed) == afterRace)
            #expect(!subject.hasObservers)
        }
    }

    @Test func serialSchedulerKeepsOrderAcrossThreads() async throws {
        let scheduler = SerialDispatchQueueScheduler(label: "test.serial")
        let values = try await Observable.from(Array(0..<1_000)).observe(on: scheduler).toArray().value
        #expect(values == Array(0..<1_000))
    }

    @Test func aCancelledDelayedActionIsReleasedAtOnceAndNeverRuns() async throws {
        final class Held: Sendable {}
        let scheduler = SerialDispatchQueueScheduler(label: "test.cancel")
        let ran = Locked(false)
        weak var released: Held?
        do {
            let held = Held()
            released = held
            let timer = scheduler.schedule(after: .seconds(600)) {
                withExtendedLifetime(held) { ran.withLock { $0 = true } }
            }
            timer.dispose()
        }
        // The cancellation is processed on the scheduler's queue.
        let deadline = ContinuousClock.now + .seconds(5)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(released == nil, "what a cancelled timer held is released long before its time")
        #expect(!ran.withLock { $0 })
        // A timer that is not cancelled still fires, once.
        let fired = Locked(0)
        _ = scheduler.schedule(after: .milliseconds(5)) { fired.withLock { $0 += 1 } }
        let until = ContinuousClock.now + .seconds(5)
        while fired.withLock({ $0 }) == 0, ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(fired.withLock { $0 } == 1)
    }

    @Test func delayOnARealSchedulerDelivers() async throws {
        let scheduler = SerialDispatchQueueScheduler(label: "test.delay")
        let values = try await Observable.from([1, 2, 3]).delay(.milliseconds(5), scheduler: scheduler).toArray().value
        #expect(values == [1, 2, 3])
    }
}
