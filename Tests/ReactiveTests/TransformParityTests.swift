import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

@Suite("Transforming operators ported from RxSwift")
struct TransformParityTests {
    let scheduler = TestScheduler()

    func hot(_ events: [Recorded<Event<Int>>]) -> TestableObservable<Int> {
        scheduler.createHotObservable(events)
    }

    @Test func reduceEmitsTheFoldAtCompletion() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300, Int.self)])
        let result = scheduler.start { source.reduce(10, accumulator: +) }
        #expect(result.events == [.next(300, 16), .completed(300)])
        #expect(source.subscriptions == [Subscription(200, 300)])
    }

    @Test func reduceOfEmptyIsTheSeedMapped() {
        let source = hot([.completed(300, Int.self)])
        let result = scheduler.start { source.reduce(10, accumulator: +, mapResult: { "total \($0)" }) }
        #expect(result.events == [.next(300, "total 10"), .completed(300)])
    }

    @Test func reduceThrowingAccumulatorFails() {
        let source = hot([.next(210, 1), .next(220, 2), .completed(300, Int.self)])
        let result = scheduler.start {
            source.reduce(0) { sum, value in
                if value == 2 { throw TestError("acc") }
                return sum + value
            }
        }
        #expect(result.events == [.error(220, TestError("acc"))])
        #expect(source.subscriptions == [Subscription(200, 220)])
    }

    @Test func enumeratedCountsFromZero() {
        let source = hot([.next(210, 5), .next(220, 6), .completed(300, Int.self)])
        let result = scheduler.start { source.enumerated().map { "\($0.index):\($0.element)" } }
        #expect(result.events == [.next(210, "0:5"), .next(220, "1:6"), .completed(300)])
    }

    @Test func enumeratedRestartsPerSubscription() {
        let source = scheduler.createColdObservable([.next(10, 5), .completed(20, Int.self)])
        let enumerated = source.enumerated().map(\.index)
        let result = scheduler.start { Observable.concat([enumerated, enumerated]) }
        #expect(result.events == [.next(210, 0), .next(230, 0), .completed(240)])
    }

    @Test func dematerializeIsTheInverseOfMaterialize() {
        let source = hot([.next(210, 1), .error(220, TestError())])
        let result = scheduler.start { source.materialize().dematerialize() }
        #expect(result.events == [.next(210, 1), .error(220, TestError())])
    }

    @Test func dematerializeEndsAtACompletedElement() {
        let source = scheduler.createHotObservable([
            .next(210, Event<Int>.next(1)), .next(220, Event<Int>.completed), .next(230, Event<Int>.next(2)),
        ])
        let result = scheduler.start { source.dematerialize() }
        #expect(result.events == [.next(210, 1), .completed(220)])
        #expect(source.subscriptions == [Subscription(200, 220)])
    }

    @Test func groupByRoutesElementsToTheirGroups() {
        let source = hot([.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(300, Int.self)])
        let result = scheduler.start {
            source.groupBy { $0 % 2 == 0 ? "even" : "odd" }.flatMap { group in group.map { "\(group.key):\($0)" } }
        }
        #expect(
            result.events == [
                .next(210, "odd:1"), .next(220, "even:2"), .next(230, "odd:3"), .next(240, "even:4"),
                .completed(300),
            ])
        #expect(source.subscriptions == [Subscription(200, 300)])
    }

    @Test func groupByEmitsEachKeyOnceAndEndsGroupsWithTheSource() {
        let source = hot([.next(210, 1), .next(220, 3), .next(230, 2), .error(240, TestError())])
        let groupEvents = Log()
        let result = scheduler.start {
            source.groupBy { $0 % 2 }
                .do(onNext: { group in
                    _ = group.subscribe(
                        onNext: { groupEvents.append("\(group.key) next \($0)") },
                        onError: { _ in groupEvents.append("\(group.key) error") })
                })
                .map(\.key)
        }
        #expect(result.events == [.next(210, 1), .next(230, 0), .error(240, TestError())])
        #expect(groupEvents.entries == ["1 next 1", "1 next 3", "0 next 2", "1 error", "0 error"])
    }

    @Test func groupByThrowingKeySelectorFails() {
        let source = hot([.next(210, 1), .next(220, 2)])
        let result = scheduler.start {
            source.groupBy { value -> Int in
                if value == 2 { throw TestError("key") }
                return value
            }.map(\.key)
        }
        #expect(result.events == [.next(210, 1), .error(220, TestError("key"))])
    }

    @Test func withUnretainedPairsWhileTheObjectLivesThenCompletes() {
        final class Owner: Sendable {
            let name = "owner"
        }
        let holder = Locked<Owner?>(Owner())
        let source = hot([.next(210, 1), .next(230, 2), .completed(300, Int.self)])
        let observable = source.withUnretained(holder.withLock { $0! }).map { "\($0.name) \($1)" }
        scheduler.scheduleAt(220) { holder.withLock { $0 = nil } }
        let result = scheduler.start { observable }
        #expect(result.events == [.next(210, "owner 1"), .completed(230)])
        #expect(source.subscriptions == [Subscription(200, 230)])
    }

    @Test func debugLogsTheLifeOfTheSubscription() {
        let lines = Log()
        let source = hot([.next(210, 1), .completed(300, Int.self)])
        let result = scheduler.start { source.debug("probe", log: { lines.append($0) }) }
        #expect(result.events == [.next(210, 1), .completed(300)])
        let suffixes = lines.entries.map { $0.components(separatedBy: ": ").dropFirst().joined(separator: ": ") }
        #expect(
            suffixes == [
                "probe -> subscribed", "probe -> Event next(1)", "probe -> Event completed", "probe -> isDisposed",
            ])
    }

    @Test func debugTrimsLongEvents() {
        let lines = Log()
        let long = String(repeating: "x", count: 100)
        _ = Observable.just(long).debug("t", trimOutput: true, log: { lines.append($0) }).subscribe()
        let trimmed = "next(" + String(repeating: "x", count: 15) + "..." + String(repeating: "x", count: 16) + ")"
        #expect(lines.entries.contains { $0.hasSuffix("t -> Event \(trimmed)") })
        #expect(lines.entries.allSatisfy { $0.count < 100 })
    }
}
