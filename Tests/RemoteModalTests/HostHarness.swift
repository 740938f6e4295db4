import RemoteModalHost
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import RemoteModalTestSupport
import Synchronization

/// The suite's host: `RemoteModalTestSupport`'s `InMemoryHost`, with a session lookup that
/// may assume the client was welcomed.
final class HostHarness: Sendable {
    let base: InMemoryHost
    var transport: InMemoryTransport { base.transport }
    var clock: TestScheduler { base.clock }
    var host: ModalHost { base.host }

    init(_ configure: (inout ModalHostConfiguration) -> Void = { _ in }) {
        base = InMemoryHost(configure)
    }

    func connect(
        name: String = "test", group: String? = nil, capabilities: [String] = ["alert", "actionSheet"],
        resume: String? = nil
    ) -> TestClient {
        base.connect(name: name, group: group, capabilities: capabilities, resume: resume)
    }

    func session(of client: TestClient) -> Session { base.session(of: client)! }
    func settle() { base.settle() }
    func forget(_ session: Session) { base.forget(session) }
    func advance(seconds: Int) { base.advance(seconds: seconds) }
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
