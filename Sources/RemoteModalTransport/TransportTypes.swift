import Foundation

/// What a connection looked like when it opened.
public struct ConnectionInfo: Sendable {
    /// The request path of the upgrade (server side) or the URL path (client side).
    public let path: String
    /// The `Origin` header of the upgrade, if any.
    public let origin: String?
    /// The TCP peer's address (a proxy's, behind one).
    public let peerAddress: String
    /// The address the client is counted under: the peer, or the right-most untrusted
    /// `X-Forwarded-For` entry when the peer is a trusted proxy (see
    /// `AdmissionPolicy.clientAddress`). Per-address limits key on this.
    public let clientAddress: String
    /// The negotiated subprotocol, if any.
    public let subprotocol: String?

    /// Creates connection facts (transports and tests).
    /// - Parameters:
    ///   - path: The request path.
    ///   - origin: The `Origin` header.
    ///   - peerAddress: The peer's address.
    ///   - clientAddress: The resolved client address; `nil` means the peer's.
    ///   - subprotocol: The negotiated subprotocol.
    public init(
        path: String, origin: String?, peerAddress: String, clientAddress: String? = nil, subprotocol: String?
    ) {
        self.path = path
        self.origin = origin
        self.peerAddress = peerAddress
        self.clientAddress = clientAddress ?? peerAddress
        self.subprotocol = subprotocol
    }
}

/// Counters kept by the transport, for `/metrics`.
public struct TransportStats: Sendable, Equatable {
    /// Connections open now.
    public var openConnections = 0
    /// Connections accepted since start.
    public var acceptedConnections = 0
    /// Upgrades refused (origin, subprotocol, path, host, connection limits).
    public var refusedUpgrades = 0
    /// Refused upgrades and HTTP requests by reason: `path`, `host`, `origin`,
    /// `subprotocol`, `connection_limit`, `address_limit`, `stopping`, `metrics_auth`,
    /// `address_sockets` (a socket closed on arrival), `method` (a method not served),
    /// `crowded_pending` (a half-finished request cut because the table was nearly full).
    public var refusals: [String: Int] = [:]
    /// Connections closed for an oversized message (1009).
    public var oversizedMessages = 0
    /// Connections closed because their outgoing queue overflowed (1008).
    public var slowConsumers = 0
    /// Keepalive pings sent to connections silent for the ping interval.
    public var pingsSent = 0
    /// Connections dropped by the keepalive: nothing heard from them for the ping interval
    /// times one plus the missed pongs allowed.
    public var silentConnectionsDropped = 0
    /// Messages received.
    public var messagesReceived = 0
    /// Messages sent.
    public var messagesSent = 0
    /// Writes handed to the socket: frames queued for a connection in one turn go out
    /// together, so this is at most ``messagesSent`` and, under load, well below it.
    public var writes = 0
    /// Bytes of messages queued for clients and not yet handed to a socket now, across
    /// every connection (bounded by the host-wide outgoing budget).
    public var outgoingQueuedBytes = 0

    /// All counters at zero.
    public init() {}
}
