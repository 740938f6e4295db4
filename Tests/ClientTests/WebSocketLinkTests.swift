import RemoteModalClient
import RemoteModalClientWebSocket
import RemoteModalHost
import RemoteModalWebSocket
import Synchronization
import Testing

/// The libwebsockets link reports refusals as the machine's policy needs them.
@Suite("WebSocketLink")
struct WebSocketLinkTests {
    /// Opens one attempt and returns its first event.
    func firstEvent(_ url: String) async throws -> LinkEvent {
        let link = try WebSocketLink(url: url)
        defer { link.stop() }
        let (events, continuation) = AsyncStream.makeStream(of: LinkEvent.self)
        link.open(attempt: 1) { continuation.yield($0) }
        var iterator = events.makeAsyncIterator()
        return try #require(await iterator.next())
    }

    @Test func aPortNobodyListensOnIsRefused() async throws {
        var server = WebSocketServerConfiguration()
        server.port = 0
        let transport = WebSocketTransport(configuration: server, logger: RobotSignInTests.quiet)
        let host = ModalHost(
            configuration: ModalHostConfiguration(), transport: transport, logger: RobotSignInTests.quiet)
        try host.start()
        let port = transport.port
        host.shutdown()
        let event = try await firstEvent("ws://127.0.0.1:\(port)/ws")
        #expect(event == .failed(.refused))
    }

    @Test func aWrongPathIsARefusedUpgrade() async throws {
        var server = WebSocketServerConfiguration()
        server.port = 0
        let transport = WebSocketTransport(configuration: server, logger: RobotSignInTests.quiet)
        let host = ModalHost(
            configuration: ModalHostConfiguration(), transport: transport, logger: RobotSignInTests.quiet)
        try host.start()
        defer { host.shutdown() }
        let event = try await firstEvent("ws://127.0.0.1:\(transport.port)/nope")
        guard case .failed(let failure) = event else {
            Issue.record("opened: \(event)")
            return
        }
        #expect(failure == .upgradeRefused("HS: ws upgrade response not 101"))
    }
}
