import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
import Synchronization

extension WebSocketServer {
    /// A server that echoes every message back with its own opcode (text or binary),
    /// for conformance suites and benchmarks. Any subprotocol is accepted.
    /// - Parameters:
    ///   - configuration: The server configuration (`acceptsAnySubprotocol` is forced on).
    ///   - logger: Where lines go.
    /// - Returns: The running server.
    /// - Throws: `WebSocketError.call` when the context cannot be created.
    public static func echo(configuration: WebSocketServerConfiguration, logger: Logger = Logger(label: "echo"))
        throws -> WebSocketServer
    {
        var configuration = configuration
        configuration.acceptsAnySubprotocol = true
        let box = Locked<WebSocketServer?>(nil)
        let server = try WebSocketServer(
            configuration: configuration, logger: logger,
            onMessage: { id, message in box.withLock { $0 }?.send(message, to: id) })
        box.withLock { $0 = server }
        return server
    }
}
