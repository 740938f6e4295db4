import Coordinator
import Reactive
import ReactiveTestSupport
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
}
