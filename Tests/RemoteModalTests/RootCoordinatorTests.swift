import RemoteModalAction
import RemoteModalCoordinator
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Synchronization
import Testing

/// Counts the desk coordinators alive, so a test can see the session release its root.
private let desksAlive = Atomic<Int>(0)

/// Upstream ReactiveCoordinator's pattern ported literally: a root coordinator whose actions
/// capture `[unowned self]`, nothing but the session holding it.
private final class DeskCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    override init(session: Session) {
        desksAlive.add(1, ordering: .relaxed)
        super.init(session: session)
    }

    deinit { desksAlive.subtract(1, ordering: .relaxed) }

    override func start() -> Observable<Void> {
        let checkIn = ButtonAction { [unowned self] in
            self.coordinate(to: CheckInCoordinator(session: self.session))
        }
        session.control("checkIn", title: "Check in").bind(to: checkIn)
        return .never()
    }
}

private final class CheckInCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    override func start() -> Observable<Void> {
        let session = self.session
        return RemoteModal.alert(
            String?.self, presenter: presenter, title: "Check in",
            textFields: [.plain(placeholder: "name")],
            actions: [.cancel(title: "Cancel", mapTo: nil), .default(title: "Check in", map: { $0[0] })]
        )
        .asObservable()
        .map { name in session.notify(name.map { "Welcome, \($0)" } ?? "Check-in cancelled") }
        .catch { _ in
            // Escape or a closed dialog: `failure` `cancelled`.
            session.notify("Check-in cancelled")
            return .empty()
        }
    }
}

@Suite("Session.coordinate(to:) owns a session's root coordinator", .serialized)
struct RootCoordinatorTests {
    private func desk() -> (HostHarness, any Disposable) {
        let harness = HostHarness { $0.retentionSeconds = 60 }
        let starting = harness.host.sessions.subscribe(onNext: { session in
            session.coordinate(to: DeskCoordinator(session: session))
        })
        return (harness, starting)
    }

    @Test func anUnownedSelfRootSurvivesTapsEscapeAndADisconnect() throws {
        let before = desksAlive.load(ordering: .relaxed)
        let (harness, starting) = desk()
        defer { starting.dispose() }
        let client = harness.connect(capabilities: ["alert"])
        #expect(client.controls?.map(\.id) == ["checkIn"])
        #expect(harness.session(of: client).rootCoordinatorCount == 1)

        // A tap and an answer: the unowned captures are read while the root is alive.
        client.send(.event(control: "checkIn"))
        harness.settle()
        let first = try #require(client.presents.last)
        client.send(alertResult(first.id, action: 1, textFields: ["Ann"]))
        harness.settle()
        #expect(client.statuses.last == "Welcome, Ann")

        // Escape: the client's failure `cancelled`.
        client.send(.event(control: "checkIn"))
        harness.settle()
        let second = try #require(client.presents.last)
        client.send(.failure(id: second.id, code: .cancelled, message: nil))
        harness.settle()
        #expect(client.statuses.last == "Check-in cancelled")

        // A dropped connection and a resume: the same root, the same control, still working.
        client.send(.event(control: "checkIn"))
        harness.settle()
        let third = try #require(client.presents.last)
        client.disconnect()
        harness.advance(seconds: 5)
        let again = harness.connect(capabilities: ["alert"], resume: client.session)
        #expect(again.session == client.session)
        #expect(again.presents.last?.id == third.id)
        again.send(alertResult(third.id, action: 1, textFields: ["Bob"]))
        harness.settle()
        #expect(again.statuses.last == "Welcome, Bob")
        #expect(desksAlive.load(ordering: .relaxed) == before + 1)
    }

    @Test func expiryReleasesTheRootAndTheHostServesTheNextSession() throws {
        let before = desksAlive.load(ordering: .relaxed)
        let (harness, starting) = desk()
        defer { starting.dispose() }
        let client = harness.connect(capabilities: ["alert"])
        client.send(.event(control: "checkIn"))
        harness.settle()
        #expect(client.presents.count == 1)
        #expect(desksAlive.load(ordering: .relaxed) == before + 1)

        // The session expires with a dialog open: the root is released, nothing crashes.
        client.disconnect()
        harness.advance(seconds: 61)
        #expect(desksAlive.load(ordering: .relaxed) == before)

        // The host is alive: another session gets its own desk and is served.
        let next = harness.connect(capabilities: ["alert"])
        next.send(.event(control: "checkIn"))
        harness.settle()
        let shown = try #require(next.presents.last)
        next.send(alertResult(shown.id, action: 1, textFields: ["Cy"]))
        harness.settle()
        #expect(next.statuses.last == "Welcome, Cy")
    }

    @Test func aRootWhoseFlowEndsIsReleasedAndDisposingEndsItEarly() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)

        final class Quick: ReactiveCoordinator<Int>, @unchecked Sendable {
            override func start() -> Observable<Int> { .just(7) }
        }
        weak var quick: Quick?
        do {
            let coordinator = Quick()
            quick = coordinator
            session.coordinate(to: coordinator)
        }
        #expect(quick == nil)
        #expect(session.rootCoordinatorCount == 0)

        final class Forever: ReactiveCoordinator<Void>, @unchecked Sendable {
            override func start() -> Observable<Void> { .never() }
        }
        weak var forever: Forever?
        let running: any Disposable
        do {
            let coordinator = Forever()
            forever = coordinator
            running = session.coordinate(to: coordinator)
        }
        #expect(forever != nil)
        #expect(session.rootCoordinatorCount == 1)
        running.dispose()
        #expect(forever == nil)
        #expect(session.rootCoordinatorCount == 0)
    }
}
