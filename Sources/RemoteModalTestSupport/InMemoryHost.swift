import RemoteModalClient
import RemoteModalHost
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalReactiveTestSupport

/// A `ModalHost` on an `InMemoryTransport` with a virtual clock: a dependent's flows tested
/// without a socket, a browser or a real second.
///
/// ```swift
/// let desk = InMemoryHost()
/// let flows = desk.host.sessions.subscribe(onNext: { session in ... })
/// let kiosk = desk.connect(capabilities: ["alert"])
/// kiosk.send(.event(control: "signIn"))
/// desk.settle()
/// #expect(kiosk.presents.count == 1)
/// desk.advance(seconds: 61)   // retention runs out: pending modals fail with sessionExpired
/// ```
///
/// `settle()` waits for everything the host has been handed (including the work it queues
/// for itself, such as coalesced `controls`); `advance(seconds:)` moves the virtual clock on
/// (timeouts, retention, upload stalls) one second at a time.
public final class InMemoryHost: Sendable {
    /// The transport the test clients connect through.
    public let transport = InMemoryTransport()
    /// The virtual clock every host timer runs on.
    public let clock = TestScheduler()
    /// The host: subscribe to `host.sessions` to start the flows under test.
    public let host: ModalHost
    private let known = Locked<[String: Session]>([:])
    private let subscription: any Disposable

    /// Creates and starts a host.
    /// - Parameters:
    ///   - logLevel: The host's log level (default `error`: quiet tests).
    ///   - configure: Changes to the default configuration (limits, retention, tokens).
    public init(logLevel: LogLevel = .error, _ configure: (inout ModalHostConfiguration) -> Void = { _ in }) {
        var configuration = ModalHostConfiguration()
        configure(&configuration)
        host = ModalHost(
            configuration: configuration, transport: transport, clock: clock,
            logger: Logger(label: "test-host", settings: LoggerSettings(level: logLevel)))
        subscription = host.sessions.subscribe(onNext: { [known] session in
            known.withLock { $0[session.id] = session }
        })
        // NB: an in-memory transport's start cannot fail (nothing to bind).
        try? host.start()
    }

    deinit { subscription.dispose() }

    /// Connects a client, says `hello` and waits for the host's answer.
    /// - Parameters:
    ///   - name: The client's name.
    ///   - group: Its group, or `nil`.
    ///   - capabilities: The kinds it can show.
    ///   - resume: A session id to resume, or `nil` for a new session.
    /// - Returns: The client, its `welcome` received.
    public func connect(
        name: String = "test", group: String? = nil, capabilities: [String] = ["alert", "actionSheet"],
        resume: String? = nil
    ) -> TestClient {
        let client = transport.connect()
        client.hello(name: name, group: group, capabilities: capabilities, resume: resume)
        settle()
        return client
    }

    /// A test robot: a `RemoteModalClient` connected to this host through an `InMemoryLink`,
    /// started, answering by meaning (`robot.alert(titled:).fill(.email, ...).choose(...)`).
    /// Stop it with `robot.client.stop()` when the test is done.
    /// - Parameters:
    ///   - name: The client's name (`hello`'s `client.name`).
    ///   - group: Its group, or `nil`.
    ///   - capabilities: The kinds it shows (default: every built-in kind).
    ///   - timeout: How long each of the robot's waits may take before it fails, saying what it saw.
    /// - Returns: The robot.
    public func robot(
        name: String = "robot", group: String? = nil, capabilities: [String] = ClientConfiguration.allKinds,
        timeout: Duration = .seconds(10)
    ) -> ModalRobot {
        let configuration = ClientConfiguration(
            client: ClientDescription(kind: "robot", name: name, group: group), capabilities: capabilities)
        let client = RemoteModalClient(configuration: configuration, link: InMemoryLink(transport))
        let robot = ModalRobot(client: client, timeout: timeout)
        client.start()
        return robot
    }

    /// The host's session of a connected client.
    /// - Parameter client: A client that has been welcomed.
    /// - Returns: Its session, or `nil` before its `welcome`.
    public func session(of client: TestClient) -> Session? {
        guard let id = client.session else { return nil }
        return known.withLock { $0[id] }
    }

    /// Waits until the host has done everything it was handed, including the work it then
    /// queued for itself (coalesced `controls` messages).
    public func settle() {
        host.barrier()
        host.barrier()
    }

    /// Stops remembering a session (long tests, so this host does not keep them all).
    /// - Parameter session: The session.
    public func forget(_ session: Session) { _ = known.withLock { $0.removeValue(forKey: session.id) } }

    /// Moves the virtual clock on, one second at a time, settling after each step until no
    /// timer is due: a timer that a due one schedules from the host's executor runs at its
    /// own time, not at the end of the jump.
    /// - Parameter seconds: How far.
    public func advance(seconds: Int) {
        for _ in 0..<seconds {
            let target = clock.clock + 1
            repeat {
                clock.advanceTo(target)
                settle()
            } while clock.hasActions(upTo: target)
        }
    }
}
