// Measures the reactive core's hot paths. Run in release mode:
//   swift run -c release reactive-bench [events]
import CRemoteModalAllocationCounter
import Foundation
import RemoteModalReactive
import Synchronization

let events = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10_000_000 : 10_000_000

struct Measurement {
    let name: String
    let events: Int
    let seconds: Double
    let allocations: UInt64

    var perSecond: Double { Double(events) / seconds }
    var allocationsPerEvent: Double { Double(allocations) / Double(events) }
}

func measure(_ name: String, events: Int, _ body: () -> Void) -> Measurement {
    body()  // warm-up run, not counted
    let allocationsBefore = rm_allocation_count()
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    let allocations = rm_allocation_count() - allocationsBefore
    return Measurement(name: name, events: events, seconds: elapsed.seconds, allocations: allocations)
}

let sink = Atomic<Int>(0)

let chain = measure("PublishSubject -> map -> filter -> subscribe", events: events) {
    let subject = PublishSubject<Int>()
    let subscription = subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.subscribe(onNext: { value in
        sink.add(value, ordering: .relaxed)
    })
    for value in 0..<events { subject.onNext(value) }
    subscription.dispose()
}

let flatEvents = events / 10
let flat = measure("Observable.from -> flatMap(Single.just) -> subscribe", events: flatEvents) {
    let subscription = Observable.from(0..<flatEvents).flatMap { Single.just($0) }.subscribe(onNext: { value in
        sink.add(value, ordering: .relaxed)
    })
    subscription.dispose()
}

let chainEvents = events / 20
let build = measure(
    "build + subscribe + dispose: create -> map -> catch -> do -> deferred (5 operators)", events: chainEvents
) {
    for value in 0..<chainEvents {
        let subscription = Observable<Int>.deferred {
            Observable<Int>.create { observer in
                observer.onNext(value)
                observer.onCompleted()
                return Disposables.create()
            }
            .map { $0 &+ 1 }
            .catch { _ in .just(0) }
            .do(onNext: { sink.add($0, ordering: .relaxed) })
        }
        .subscribe(onNext: { value in sink.add(value, ordering: .relaxed) })
        subscription.dispose()
    }
}

let rawEvents = events
let raw = measure("floor: plain closure call", events: rawEvents) {
    let body: (Int) -> Void = { value in if (value &+ 1) & 1 == 0 { sink.add(value, ordering: .relaxed) } }
    for value in 0..<rawEvents { body(value) }
}

print("| workload | events | events/s | ns/event | allocations/event |")
print("| --- | ---: | ---: | ---: | ---: |")
for row in [chain, flat, build, raw] {
    let perSecond = String(format: "%.1f M", row.perSecond / 1e6)
    let nanos = String(format: "%.1f", row.seconds * 1e9 / Double(row.events))
    let allocs = String(format: "%.2f", row.allocationsPerEvent)
    print("| \(row.name) | \(row.events) | \(perSecond) | \(nanos) | \(allocs) |")
}
print("")
print(String(format: "map/filter chain costs %.1fx the plain closure call", chain.seconds / raw.seconds))
