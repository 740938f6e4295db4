import RemoteModalHost
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import RemoteModalTestSupport

/// A host on the in-memory transport with one connected client: where the ported examples
/// run. The presenter is the only thing an example has to change.
final class PortingHarness: Sendable {
    let transport = InMemoryTransport()
    let host: ModalHost
    let client: TestClient
    let session: Session

    init(capabilities: [String] = ["alert", "actionSheet", "mailComposer", "messageComposer"]) {
        host = ModalHost(
            configuration: ModalHostConfiguration(), transport: transport, clock: TestScheduler(),
            logger: Logger(label: "porting", settings: LoggerSettings(level: .error)))
        let latest = Locked<Session?>(nil)
        let subscription = host.sessions.subscribe(onNext: { session in latest.withLock { $0 = session } })
        try! host.start()
        client = transport.connect()
        client.hello(name: "porting", group: nil, capabilities: capabilities, resume: nil)
        host.barrier()
        host.barrier()
        session = latest.withLock { $0 }!
        subscription.dispose()
    }

    /// Where the examples present: the one session.
    var presenter: Presenter { .session(session) }

    /// Lets the host finish its work, including what it queued for itself.
    func settle() {
        host.barrier()
        host.barrier()
    }

    /// Answers alert or action sheet `id` with the action at `index`.
    func choose(_ id: String, action index: Int, textFields: [String] = []) {
        client.send(
            .result(
                id: id,
                value: ["action": .number(Double(index)), "textFields": .array(textFields.map { .string($0) })]))
        settle()
    }
}

/// A thread-safe list of what an example printed or emitted.
final class Printed: Sendable {
    private let lines = Locked<[String]>([])
    func print(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
