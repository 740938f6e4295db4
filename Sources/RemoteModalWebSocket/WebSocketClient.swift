import Foundation
import RemoteModalLogging
import RemoteModalTransport

/// WebSocket client connections on one libwebsockets context and service thread. One
/// instance can hold thousands of connections (the load generator does).
///
/// Handlers run on the client's service thread and must not block. `connect`, `send` and
/// `close` may be called from any thread. A dropped connection is reported through the
/// close handler; reconnecting is the caller's decision.
public final class WebSocketClient: Sendable {
    /// Called when a connection opens.
    public typealias OpenHandler = @Sendable (ConnectionID) -> Void
    /// Called for every complete message.
    public typealias MessageHandler = @Sendable (ConnectionID, WebSocketMessage) -> Void
    /// Called once when an open connection closes (code 1006 when it simply dropped).
    public typealias CloseHandler = @Sendable (ConnectionID, CloseCode, String) -> Void
    /// Called when a connection could not be opened.
    public typealias FailureHandler = @Sendable (ConnectionID, String) -> Void

    private let loop: ServiceLoop

    /// Creates a client and its service thread.
    /// - Parameters:
    ///   - caFile: A PEM file of certificate authorities to trust for `wss://`, in
    ///     addition to the system's.
    ///   - eventLoop: What the service thread waits on (`.libev` for thousands of
    ///     connections, as the load generator holds).
    ///   - logger: Where the client's lines go.
    ///   - onOpen: Connection opened.
    ///   - onMessage: Message received.
    ///   - onClose: Connection closed.
    ///   - onFailure: Connection could not be opened (refused, TLS failure, HTTP error).
    /// - Throws: `WebSocketError.call` when the context cannot be created,
    ///   `WebSocketError.eventLibraryMissing` when `eventLoop`'s plugin is not installed.
    public init(
        caFile: String? = nil,
        eventLoop: EventLoopBackend = .poll,
        logger: Logger = Logger(label: "websocket-client"),
        onOpen: @escaping OpenHandler = { _ in },
        onMessage: @escaping MessageHandler,
        onClose: @escaping CloseHandler = { _, _, _ in },
        onFailure: @escaping FailureHandler = { _, _ in }
    ) throws {
        LibraryLog.install(level: .warning, logger: Logger(label: "lws"))
        let handlers = LoopHandlers(
            opened: { id, _ in onOpen(id) }, message: onMessage, closed: onClose, connectFailed: onFailure)
        loop = ServiceLoop(role: .client(caFile: caFile, eventLoop: eventLoop), handlers: handlers, logger: logger)
        try loop.start()
    }

    /// Opens a connection.
    /// - Parameters:
    ///   - url: `ws://host:port/path` or `wss://...`.
    ///   - subprotocol: The subprotocol to offer, or `nil` for none.
    ///   - origin: An `Origin` header to send (browsers send one; kiosks do not).
    ///   - localAddress: The local IP address to connect from (for example `127.0.0.2`, to
    ///     stand for another machine on loopback), or `nil` for the one the route picks.
    /// - Returns: The connection's id; events for it follow on the handlers.
    /// - Throws: `WebSocketError.invalidURL` for a malformed URL.
    public func connect(
        _ url: String, subprotocol: String? = "remote-modal.v1", origin: String? = nil, localAddress: String? = nil
    ) throws -> ConnectionID {
        loop.connect(url: try ParsedURL(url), subprotocol: subprotocol, origin: origin, localAddress: localAddress)
    }

    /// Queues a message.
    /// - Parameters:
    ///   - message: The message.
    ///   - connection: The connection.
    /// - Returns: `false` when the connection is not open.
    @discardableResult
    public func send(_ message: WebSocketMessage, to connection: ConnectionID) -> Bool {
        loop.send(message, to: connection)
    }

    /// Queues a text message.
    /// - Parameters:
    ///   - text: The text.
    ///   - connection: The connection.
    /// - Returns: `false` when the connection is not open.
    @discardableResult
    public func send(text: String, to connection: ConnectionID) -> Bool {
        loop.send(.text(text), to: connection)
    }

    /// Closes a connection after the frames already queued.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - code: The close code.
    ///   - reason: A short reason.
    public func close(_ connection: ConnectionID, code: CloseCode = .normal, reason: String = "") {
        loop.close(connection, code: code, reason: reason)
    }

    /// Transport counters.
    public var stats: TransportStats { loop.stats }

    /// Closes every connection and stops the service thread. Idempotent.
    /// - Parameter deadline: Seconds to wait for connections to close cleanly.
    public func stop(deadline: Double = 1) {
        loop.stop(deadline: deadline)
    }

    deinit {
        loop.stop(deadline: 1)
    }
}
