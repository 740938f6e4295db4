import Foundation
import RemoteModalLogging
import RemoteModalTransport

/// A WebSocket and HTTP server on libwebsockets: `/ws` upgrades, static files from the
/// web root, `/healthz`, and dynamic routes, all on one port, plain or TLS.
///
/// Handlers run on the server's service thread and must not block. `send` and `close`
/// may be called from any thread.
public final class WebSocketServer: Sendable {
    /// Called when a connection opens.
    public typealias OpenHandler = @Sendable (ConnectionID, ConnectionInfo) -> Void
    /// Called for every complete message.
    public typealias MessageHandler = @Sendable (ConnectionID, WebSocketMessage) -> Void
    /// Called once when a connection has closed, with the close code and reason.
    public typealias CloseHandler = @Sendable (ConnectionID, CloseCode, String) -> Void

    /// The configuration the server was created with.
    public let configuration: WebSocketServerConfiguration
    private let loop: ServiceLoop

    /// Creates and starts a server.
    /// - Parameters:
    ///   - configuration: Address, limits, TLS, web root.
    ///   - logger: Where the server's and libwebsockets' lines go.
    ///   - route: Dynamic HTTP routes, tried before static files.
    ///   - onOpen: Connection opened.
    ///   - onMessage: Message received.
    ///   - onClose: Connection closed.
    ///   - executor: The executor whose work runs on the service loop (the one
    ///     ``WebSocketTransport`` hands the host), or `nil` for none.
    /// - Throws: `WebSocketError.call` when the context cannot be created (port taken,
    ///   unreadable certificate, ...).
    public init(
        configuration: WebSocketServerConfiguration,
        logger: Logger = Logger(label: "websocket"),
        route: @escaping HTTPRoute = { _ in nil },
        onOpen: @escaping OpenHandler = { _, _ in },
        onMessage: @escaping MessageHandler,
        onClose: @escaping CloseHandler = { _, _, _ in },
        executor: LoopExecutor? = nil
    ) throws {
        self.configuration = configuration
        LibraryLog.install(level: configuration.libraryLogLevel, logger: Logger(label: "lws"))
        let handlers = LoopHandlers(opened: onOpen, message: onMessage, closed: onClose, route: route)
        loop = ServiceLoop(role: .server(configuration), handlers: handlers, logger: logger, executor: executor)
        try loop.start()
        logger.info(
            "listening on \(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(loop.port)")
    }

    /// The port the server listens on (the real one when configured with port 0).
    public var port: Int { loop.port }

    /// Transport counters for `/metrics`.
    public var stats: TransportStats { loop.stats }

    /// The kernel id of the service thread (its entry in /proc/self/task), for leak checks.
    var serviceThreadKernelID: Int32 { loop.serviceThreadKernelID.load(ordering: .acquiring) }

    /// Queues a message for a connection.
    /// - Parameters:
    ///   - message: The message.
    ///   - connection: The connection.
    /// - Returns: `false` when the connection is unknown or closing (the message is dropped).
    @discardableResult
    public func send(_ message: WebSocketMessage, to connection: ConnectionID) -> Bool {
        loop.send(message, to: connection)
    }

    /// Queues a text message.
    /// - Parameters:
    ///   - text: The text.
    ///   - connection: The connection.
    /// - Returns: `false` when the connection is unknown or closing.
    @discardableResult
    public func send(text: String, to connection: ConnectionID) -> Bool {
        loop.send(.text(text), to: connection)
    }

    /// Queues a text message given as its UTF-8 bytes, written as they are (no String is
    /// made of them).
    /// - Parameters:
    ///   - utf8: The text's bytes; they must be valid UTF-8.
    ///   - connection: The connection.
    /// - Returns: `false` when the connection is unknown or closing.
    @discardableResult
    public func send(utf8: [UInt8], to connection: ConnectionID) -> Bool {
        loop.send(utf8: utf8, to: connection)
    }

    /// Closes a connection after the frames already queued for it.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - code: The close code.
    ///   - reason: A short reason (at most 123 bytes are sent).
    public func close(_ connection: ConnectionID, code: CloseCode = .normal, reason: String = "") {
        loop.close(connection, code: code, reason: reason)
    }

    /// Closes every connection with 1001, waits up to the configured deadline for them,
    /// then stops the service thread and frees everything. Idempotent.
    public func stop() {
        loop.stop(deadline: configuration.shutdownDeadlineSeconds)
    }

    deinit {
        loop.stop(deadline: configuration.shutdownDeadlineSeconds)
    }
}
