/// What the transport reports to the host. The closures may run on any one thread, in
/// order per connection; the host hops onto its own executor.
public struct TransportEvents: Sendable {
    /// A connection opened.
    public var opened: @Sendable (ConnectionID, ConnectionInfo) -> Void
    /// A complete message arrived.
    public var message: @Sendable (ConnectionID, WebSocketMessage) -> Void
    /// A connection closed.
    public var closed: @Sendable (ConnectionID, CloseCode, String) -> Void
    /// An HTTP request for a dynamic route.
    public var route: HTTPRoute

    /// Creates the event handlers.
    /// - Parameters:
    ///   - opened: Connection opened.
    ///   - message: Message received.
    ///   - closed: Connection closed.
    ///   - route: Dynamic HTTP routes.
    public init(
        opened: @escaping @Sendable (ConnectionID, ConnectionInfo) -> Void,
        message: @escaping @Sendable (ConnectionID, WebSocketMessage) -> Void,
        closed: @escaping @Sendable (ConnectionID, CloseCode, String) -> Void,
        route: @escaping HTTPRoute
    ) {
        self.opened = opened
        self.message = message
        self.closed = closed
        self.route = route
    }
}

/// The seam between the host and the wire: the real WebSocket server, or an in-memory
/// transport in tests.
public protocol HostTransport: Sendable {
    /// The executor the transport delivers its events on, when it has one (a service
    /// loop); the host then runs there too, and events need no hop. `nil`: the host makes
    /// a serial queue of its own and the transport's events hop onto it.
    var executor: (any HostExecutor)? { get }

    /// Starts delivering events.
    /// - Parameter events: Where events go.
    /// - Throws: When the transport cannot start (port taken, bad certificate).
    func start(events: TransportEvents) throws

    /// Sends a text frame.
    /// - Parameters:
    ///   - text: The frame.
    ///   - connection: The connection.
    func send(_ text: String, to connection: ConnectionID)

    /// Sends a text frame given as its UTF-8 bytes (how the host encodes its messages). A
    /// transport that writes bytes takes them as they are; the default makes a String.
    /// - Parameters:
    ///   - utf8: The frame's text; valid UTF-8.
    ///   - connection: The connection.
    func send(utf8: [UInt8], to connection: ConnectionID)

    /// Closes a connection after what was already queued.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - code: The close code.
    ///   - reason: The reason.
    func close(_ connection: ConnectionID, code: CloseCode, reason: String)

    /// Closes every connection with 1001 and stops.
    func stop()

    /// Transport counters for `/metrics`.
    var stats: TransportStats { get }
}

extension HostTransport {
    /// No executor of its own.
    public var executor: (any HostExecutor)? { nil }

    /// Sends the bytes as a String.
    /// - Parameters:
    ///   - utf8: The frame's text; valid UTF-8.
    ///   - connection: The connection.
    public func send(utf8: [UInt8], to connection: ConnectionID) {
        send(String(decoding: utf8, as: UTF8.self), to: connection)
    }
}
