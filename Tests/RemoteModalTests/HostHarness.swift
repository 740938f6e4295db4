import RemoteModalHost
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import RemoteModalTestSupport
import Synchronization

/// A host on an in-memory transport with a virtual clock.
final class HostHarness: Sendable {
    let transport = InMemoryTransport()
    let clock = TestScheduler()
    let host: ModalHost
    private let known = SessionRegistry()
    private let subscription: any Disposable

    init(_ configure: (inout ModalHostConfiguration) -> Void = { _ in }) {
        var configuration = ModalHostConfiguration()
        configure(&configuration)
        host = ModalHost(
            configuration: configuration, transport: transport, clock: clock,
            logger: Logger(label: "test-host", settings: LoggerSettings(level: .error)))
        subscription = host.sessions.subscribe(onNext: { [known] session in known.add(session) })
        try! host.start()
    }

    deinit { subscription.dispose() }

    /// Connects a client and says hello.
    func connect(
        name: String = "test", group: String? = nil, capabilities: [String] = ["alert", "actionSheet"],
        resume: String? = nil
    ) -> TestClient {
        let client = transport.connect()
        client.hello(name: name, group: group, capabilities: capabilities, resume: resume)
        settle()
        return client
    }

    func session(of client: TestClient) -> Session {
        known.session(client.session!)!
    }

    /// Lets the host finish what it is doing, including work it queued for itself
    /// (coalesced `controls` messages).
    func settle() {
        host.barrier()
        host.barrier()
    }

    /// Stops remembering a session (long-running tests, so the harness does not keep them).
    func forget(_ session: Session) { known.remove(session.id) }

    /// Moves the virtual clock on and lets the host finish what the timers started,
    /// including timers those schedule from the host's executor on the way (a chain of
    /// held upload acknowledgements): the clock's loop cannot see a timer the executor
    /// has not scheduled yet, so it runs again after each settle until none is due.
    ///
    /// One second at a time: a timer that a due action re-schedules from the executor (the
    /// host's trim, every 10 s) is scheduled from the time it ran at, not from a clock that
    /// already jumped to the target (that made `UploadTests`' stalled-upload check flaky: the
    /// trim at 10 s re-scheduled itself after 55 s, and the one at 40 s never ran).
    func advance(seconds: Int) {
        for _ in 0..<seconds {
            let target = clock.clock + 1
            repeat {
                clock.advanceTo(target)
                settle()
            } while clock.hasActions(upTo: target)
        }
    }
}

/// Records what a subscribed sequence did.
final class Outcome<Element: Sendable>: Sendable {
    private let state = Locked<(elements: [Element], error: (any Error)?, completed: Bool)>(([], nil, false))

    func observer() -> AnyObserver<Element> {
        AnyObserver { event in
            self.state.withLock { state in
                switch event {
                case .next(let element): state.elements.append(element)
                case .error(let error): state.error = error
                case .completed: state.completed = true
                }
            }
        }
    }

    var elements: [Element] { state.withLock { $0.elements } }
    var error: RemoteModalError? { state.withLock { $0.error as? RemoteModalError } }
    var completed: Bool { state.withLock { $0.completed } }
    var finished: Bool { state.withLock { $0.completed || $0.error != nil } }
}

/// The demo's sign-in alert: e-mail and password; "Sign In" (action 1) enabled while the
/// e-mail has an `@` and the password is not empty, answering the e-mail; Cancel answers "".
func signInAlert(on session: Session) -> Observable<String> {
    RemoteModal.alert(
        String.self, presenter: .session(session), title: "Sign in",
        textFields: [.email(placeholder: "e-mail"), .password(placeholder: "password")],
        actions: [
            .cancel(title: "Cancel", mapTo: ""),
            DialogAction.default(title: "Sign In", map: { $0[0] }).enabledIf { $0[0].contains("@") && !$0[1].isEmpty },
        ])
}

func alertResult(_ id: String, action: Int, textFields: [String] = []) -> ClientMessage {
    .result(id: id, value: ["action": .number(Double(action)), "textFields": .array(textFields.map { .string($0) })])
}

/// The sessions a host created, by id.
final class SessionRegistry: Sendable {
    private let sessions = Locked<[String: Session]>([:])
    func add(_ session: Session) { sessions.withLock { $0[session.id] = session } }
    func session(_ id: String) -> Session? { sessions.withLock { $0[id] } }
    func remove(_ id: String) { sessions.withLock { $0[id] = nil } }
}
