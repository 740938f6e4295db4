import RemoteModalClient
import RemoteModalClientWebSocket
import RemoteModalDemo
import RemoteModalHost
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalTestSupport
import RemoteModalWebSocket
import Testing

/// The demo's sign-in flow, answered by meaning, in memory and over a real socket.
@Suite("The test robot on the demo's flows")
struct RobotSignInTests {
    static let quiet = Logger(label: "robot-test", settings: LoggerSettings(level: .error))
    static let robotConfiguration = ClientConfiguration(client: ClientDescription(kind: "robot", name: "ann"))

    static func signIn(_ robot: ModalRobot) async throws {
        try await robot.tap("signIn")
        try await robot.alert(titled: "Sign in").fill(.email, "ann@example.com").fill(.password, "pw").choose("Sign In")
        let status = try await robot.status()
        #expect(status.level == .success)
        #expect(status.text == "Signed in as ann@example.com")
    }

    @Test func signsInInMemory() async throws {
        let transport = InMemoryTransport()
        let host = ModalHost(configuration: ModalHostConfiguration(), transport: transport, logger: Self.quiet)
        let flows = DemoFlows.install(on: host)
        try host.start()
        defer { flows.dispose() }
        let client = RemoteModalClient(configuration: Self.robotConfiguration, link: InMemoryLink(transport))
        let robot = ModalRobot(client: client)
        client.start()
        try await Self.signIn(robot)
        // Cancel says so too, and a disabled Sign In is never chosen.
        try await robot.tap("signIn")
        try await robot.alert(titled: "Sign in").cancel()
        #expect(try await robot.status().text == "Sign in cancelled")
        client.stop()
    }

    @Test func signsInOverASocket() async throws {
        var server = WebSocketServerConfiguration()
        server.port = 0
        let transport = WebSocketTransport(configuration: server, logger: Self.quiet)
        let host = ModalHost(configuration: ModalHostConfiguration(), transport: transport, logger: Self.quiet)
        let flows = DemoFlows.install(on: host)
        try host.start()
        defer {
            flows.dispose()
            host.shutdown()
        }
        let link = try WebSocketLink(url: "ws://127.0.0.1:\(transport.port)/ws")
        defer { link.stop() }
        let client = RemoteModalClient(configuration: Self.robotConfiguration, link: link)
        let robot = ModalRobot(client: client)
        client.start()
        try await Self.signIn(robot)
        client.stop()
    }

    @Test func picksPhotosInMemory() async throws {
        let transport = InMemoryTransport()
        let host = ModalHost(configuration: ModalHostConfiguration(), transport: transport, logger: Self.quiet)
        let flows = DemoFlows.install(on: host)
        try host.start()
        defer { flows.dispose() }
        let client = RemoteModalClient(configuration: Self.robotConfiguration, link: InMemoryLink(transport))
        let robot = ModalRobot(client: client)
        client.start()
        try await robot.tap("photo")
        // 300,000 bytes: ten chunks, more than the host's window of eight.
        let photo = MemoryFile(
            // It starts as a PNG does: the picker judges a file by its bytes.
            name: "cat.png", mimeType: "image/png",
            bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + (8..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let empty = MemoryFile(name: "empty.png", mimeType: "image/png", bytes: [])
        try await robot.picker().pick([photo, empty])
        #expect(try await robot.status().text == "Received 2 photos, 300 kB")
        client.stop()
    }

    /// `InMemoryHost.robot(name:)`: the README's way (the README's own block is compiled and
    /// run by scripts/check-package in a dependent package).
    @Test func anInMemoryHostsRobotSignsInToTheDemo() async throws {
        let desk = InMemoryHost()
        let flows = DemoFlows.install(on: desk.host)
        defer { flows.dispose() }
        let robot = desk.robot(name: "ann")
        defer { robot.client.stop() }
        try await robot.tap("signIn")
        try await robot.alert(titled: "Sign in").fill(.email, "ann@example.com").fill(.password, "pw").choose("Sign In")
        #expect(try await robot.status().text == "Signed in as ann@example.com")
    }

    /// `status()` is the latest status, not the oldest unread one: two statuses come before a
    /// dialog, and after the dialog `status()` is the second; the next `status()` waits for
    /// the status that comes after the answer.
    @Test func statusIsTheLatestNotTheOldestUnread() async throws {
        let desk = InMemoryHost()
        let flows = desk.host.sessions.subscribe(onNext: { session in
            session.notify("first")
            session.notify("second")
            RemoteModal.alert(
                Int.self, presenter: .session(session), title: "Next", actions: [.default(title: "OK", mapTo: 1)]
            )
            .subscribe(onNext: { _ in session.notify("after the answer", level: .success) })
            .disposed(by: session.disposeBag)
        })
        defer { flows.dispose() }
        let robot = desk.robot(name: "ann")
        defer { robot.client.stop() }
        // The statuses came before the alert on one connection: both are unread now.
        let next = try await robot.alert(titled: "Next")
        #expect(try await robot.status().text == "second")
        try await next.choose("OK")
        let after = try await robot.status()
        #expect(after.text == "after the answer")
        #expect(after.level == .success)
    }

    @Test func aWaitThatNeverEndsFailsSayingWhatItSaw() async throws {
        let transport = InMemoryTransport()
        let host = ModalHost(configuration: ModalHostConfiguration(), transport: transport, logger: Self.quiet)
        let flows = DemoFlows.install(on: host)
        try host.start()
        defer { flows.dispose() }
        let client = RemoteModalClient(configuration: Self.robotConfiguration, link: InMemoryLink(transport))
        // Long enough for the connection on a loaded machine (or under ThreadSanitizer, where
        // 300 ms was not), short enough for the test: the wait below never ends either way.
        let robot = ModalRobot(client: client, timeout: .seconds(2))
        client.start()
        try await robot.connected()
        do {
            _ = try await robot.alert(titled: "Nothing like this")
            Issue.record("the wait returned")
        } catch let error as RobotError {
            #expect(error.message.contains("an alert titled \u{201C}Nothing like this\u{201D}"))
            #expect(error.description.contains("signIn"))
        }
        client.stop()
    }
}

/// The real host: an answer given while the network is down goes when it is back, and is
/// taken (the flow ends and its control works again).
@Suite("The client against a real in-memory host")
struct ClientAgainstHostTests {
    @Test func anAnswerGivenOfflineIsSentOnResumeAndTaken() async throws {
        let transport = InMemoryTransport()
        let host = ModalHost(
            configuration: ModalHostConfiguration(), transport: transport, logger: RobotSignInTests.quiet)
        let flows = DemoFlows.install(on: host)
        try host.start()
        defer { flows.dispose() }
        let link = InMemoryLink(transport)
        let configuration = ClientConfiguration(
            client: ClientDescription(kind: "robot", name: "ann"), policy: ReconnectPolicy(base: 0.01, cap: 0.05))
        let client = RemoteModalClient(configuration: configuration, link: link)
        let robot = ModalRobot(client: client)
        client.start()
        try await robot.tap("country")
        let sheet = try await robot.sheet(titled: "Choose a country")
        link.refuse(true)
        link.drop()
        let form = try #require(await sheet.form)
        try client.answer(form, choosing: "Japan")
        link.refuse(false)
        #expect(try await robot.status().text == "Country: Japan")
        try await robot.tap("country")
        _ = try await robot.sheet(titled: "Choose a country")
        client.stop()
    }
}
