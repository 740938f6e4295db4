import RemoteModalCoordinator
import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Testing

final class ChildCoordinator: ReactiveCoordinator<String>, @unchecked Sendable {
    let flow: Observable<String>
    init(_ flow: Observable<String>) {
        self.flow = flow
    }
    override func start() -> Observable<String> { flow }
}

final class ParentCoordinator: ReactiveCoordinator<String>, @unchecked Sendable {}

@Suite("ReactiveCoordinator releases children however their flow ends")
struct CoordinatorTests {
    @Test(
        arguments: [
            ("value", Observable<String>.just("ok")),
            ("completion without value", Observable<String>.empty()),
            ("error", Observable<String>.error(TestError())),
        ])
    func childReleasedWhenItsFlowEnds(name: String, flow: Observable<String>) {
        let parent = ParentCoordinator()
        weak var weakChild: ChildCoordinator?
        do {
            let child = ChildCoordinator(flow)
            weakChild = child
            _ = parent.coordinate(to: child).subscribe()
        }
        #expect(parent.childCount == 0, "\(name)")
        #expect(weakChild == nil, "\(name)")
    }

    @Test func childReleasedWhenTheSubscriptionIsDisposed() {
        let parent = ParentCoordinator()
        weak var weakChild: ChildCoordinator?
        let subscription: any Disposable
        do {
            let child = ChildCoordinator(.never())
            weakChild = child
            subscription = parent.coordinate(to: child).subscribe()
        }
        #expect(parent.childCount == 1)
        #expect(weakChild != nil)
        subscription.dispose()
        #expect(parent.childCount == 0)
        #expect(weakChild == nil)
    }

    @Test func resultFlowsToTheParent() {
        let parent = ParentCoordinator()
        let result = TestScheduler().start { parent.coordinate(to: ChildCoordinator(.just("France"))) }
        #expect(result.elements == ["France"])
    }

    @Test func baseStartFailsWithoutTrapping() {
        let result = TestScheduler().start { ParentCoordinator().start() }
        #expect(result.events.first?.value.error != nil)
    }

    /// The child's life on virtual time: the parent holds it from subscription to the end
    /// of its flow, however that end comes, and not beyond.
    @Test(
        arguments: [
            ("value then completion", [Recorded.next(210, "a"), .next(220, "b"), .completed(240)], 240),
            ("completion without value", [.completed(240, String.self)], 240),
            ("error after a value", [.next(210, "a"), .error(240, TestError(), String.self)], 240),
            ("disposal", [.next(210, "a")], 500),
        ])
    func childHeldUntilItsFlowEnds(name: String, events: [Recorded<Event<String>>], end: Int) {
        let scheduler = TestScheduler()
        let flow = scheduler.createHotObservable(events)
        let parent = ParentCoordinator()
        let held = Log()
        for time in [199, 215, 235, end - 1, end + 1] {
            scheduler.scheduleAt(time) { held.append("\(time): \(parent.childCount)") }
        }
        let result = scheduler.start(disposed: 500) { parent.coordinate(to: ChildCoordinator(flow.asObservable())) }
        #expect(
            held.entries == ["199: 0", "215: 1", "235: 1", "\(end - 1): 1", "\(end + 1): 0"], "\(name)")
        #expect(flow.subscriptions == [Subscription(200, end)], "\(name)")
        #expect(result.events.last?.time ?? end <= end, "\(name)")
    }

    @Test func aValueAloneDoesNotReleaseTheChild() {
        let parent = ParentCoordinator()
        let answers = PublishSubject<String>()
        weak var weakChild: ChildCoordinator?
        let subscription: any Disposable
        do {
            let child = ChildCoordinator(answers.asObservable())
            weakChild = child
            subscription = parent.coordinate(to: child).subscribe()
        }
        answers.onNext("first")
        #expect(parent.childCount == 1)
        #expect(weakChild != nil)
        answers.onCompleted()
        #expect(parent.childCount == 0)
        #expect(weakChild == nil)
        subscription.dispose()
    }

    @Test func aFlowEndingAtItsFirstValueReleasesThere() {
        let parent = ParentCoordinator()
        let answers = PublishSubject<String>()
        let subscription = parent.coordinate(to: ChildCoordinator(answers.take(1))).subscribe()
        #expect(parent.childCount == 1)
        answers.onNext("first")
        #expect(parent.childCount == 0)
        subscription.dispose()
    }

    @Test func coordinationResultIsTheResultType() {
        let result: ChildCoordinator.CoordinationResult = "France"
        #expect(type(of: result) == String.self)
        #expect(ChildCoordinator.CoordinationResult.self == String.self)
    }
}

/// A thread-safe list of strings that tests append to.
final class Log: Sendable {
    private let storage = Locked<[String]>([])
    func append(_ entry: String) { storage.withLock { $0.append(entry) } }
    var entries: [String] { storage.withLock { $0 } }
}
