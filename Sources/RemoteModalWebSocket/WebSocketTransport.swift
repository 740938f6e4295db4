import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
import Synchronization

/// The real transport: a libwebsockets server.
public final class WebSocketTransport: HostTransport {
    private let configuration: WebSocketServerConfiguration
    private let logger: Logger
    private let server = Locked<WebSocketServer?>(nil)
    private let loopExecutor = LoopExecutor()

    /// The server's service loop: the host runs there, with no thread hop per message.
    public var executor: (any HostExecutor)? { loopExecutor }

    /// Creates the transport; it listens once `start` is called.
    /// - Parameters:
    ///   - configuration: The server configuration.
    ///   - logger: Where the server logs.
    public init(configuration: WebSocketServerConfiguration, logger: Logger = Logger(label: "transport")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The port the server listens on, once started.
    public var port: Int { server.withLock { $0?.port ?? 0 } }

    /// Starts the server.
    /// - Parameter events: Where events go.
    /// - Throws: ``WebSocketError`` when it cannot listen.
    public func start(events: TransportEvents) throws {
        let started = try WebSocketServer(
            configuration: configuration, logger: logger, route: events.route, onOpen: events.opened,
            onMessage: events.message, onClose: events.closed, executor: loopExecutor)
        server.withLock { $0 = started }
    }

    /// Sends a text frame.
    /// - Parameters:
    ///   - text: The frame.
    ///   - connection: The connection.
    public func send(_ text: String, to connection: ConnectionID) {
        server.withLock { $0 }?.send(text: text, to: connection)
    }

    /// Sends a text frame given as its UTF-8 bytes.
    /// - Parameters:
    ///   - utf8: The frame's text, valid UTF-8.
    ///   - connection: The connection.
    public func send(utf8: [UInt8], to connection: ConnectionID) {
        server.withLock { $0 }?.send(utf8: utf8, to: connection)
    }

    /// Closes a connection.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - code: The close code.
    ///   - reason: The reason.
    public func close(_ connection: ConnectionID, code: CloseCode, reason: String) {
        server.withLock { $0 }?.close(connection, code: code, reason: reason)
    }

    /// Stops the server (1001 to every connection).
    public func stop() {
        server.withLock { $0 }?.stop()
    }

    /// Transport counters.
    public var stats: TransportStats { server.withLock { $0?.stats } ?? TransportStats() }
}
