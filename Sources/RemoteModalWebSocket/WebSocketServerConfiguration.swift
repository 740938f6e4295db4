import RemoteModalLogging
import RemoteModalTransport

/// A certificate and private key in PEM files, for `wss://` and `https://`.
public struct TLSConfiguration: Sendable, Equatable {
    /// The certificate (chain) file.
    public var certificatePath: String
    /// The private key file.
    public var privateKeyPath: String

    /// Creates a TLS configuration.
    /// - Parameters:
    ///   - certificatePath: The certificate (chain) file.
    ///   - privateKeyPath: The private key file.
    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

/// Everything a ``WebSocketServer`` needs to know; each limit is a documented default.
public struct WebSocketServerConfiguration: Sendable {
    /// The address to bind (`127.0.0.1` by default; `0.0.0.0` for every interface).
    public var host = "127.0.0.1"
    /// The TCP port (`0`: pick a free one; read it from ``WebSocketServer/port``).
    public var port = 8080
    /// TLS, or `nil` for plain `ws://` and `http://`.
    public var tls: TLSConfiguration?
    /// The WebSocket path.
    public var path = "/ws"
    /// The subprotocol selected when a client offers it.
    public var subprotocol = "remote-modal.v1"
    /// Accept a client that offers only other subprotocols (echo mode for conformance
    /// suites); otherwise such an upgrade is refused with 400.
    public var acceptsAnySubprotocol = false
    /// The largest message accepted; a larger one closes the connection with 1009.
    public var maxMessageBytes = 65_536
    /// Origins allowed besides the host's own (`scheme://host:port`). An upgrade
    /// without `Origin` passes; a foreign one gets HTTP 403.
    public var allowedOrigins: [String] = []
    /// Seconds with nothing heard from a connection (any frame counts) before the server
    /// pings it; it pings again every interval of silence after that.
    public var pingIntervalSeconds = 20
    /// Pings that may go unanswered before the connection is dropped: it is closed once
    /// nothing was heard for `pingIntervalSeconds * (1 + missedPongsBeforeClose)`.
    public var missedPongsBeforeClose = 2
    /// The most WebSocket connections at once; upgrades past it get HTTP 503. The server
    /// lowers it at start when the process may not open that many files (see
    /// ``fileDescriptorReserve``).
    public var maxConnections = 10_000
    /// The most WebSocket connections one client address may hold at once; upgrades past
    /// it get HTTP 503. 64 is far above what a browser tab and its reconnects need.
    public var maxConnectionsPerAddress = 64
    /// Sockets a second one client address may have end without becoming a WebSocket
    /// connection (plain HTTP requests, refused methods, requests cut half-finished) or end
    /// as one within 10 s of its upgrade, after a first ``socketChurnBurstPerAddress``; past
    /// it the address's new sockets are closed on arrival until its budget refills. 0 turns
    /// the budget off. WebSocket connections that stay are not charged, nor sockets from
    /// ``trustedProxies``.
    public var socketChurnPerAddress = 64
    /// Sockets one client address may have end without an upgrade at once, before
    /// ``socketChurnPerAddress`` applies.
    public var socketChurnBurstPerAddress = 128
    /// Proxies whose `X-Forwarded-For` names the client (IP literals). From any other
    /// peer the header is ignored and the peer is the client address.
    public var trustedProxies: [String] = []
    /// Host names the `Host` header may carry besides `localhost`, the bind address and
    /// ``publicHost`` (a leading dot allows every subdomain); others get HTTP 403.
    public var allowedHosts: [String] = []
    /// The host of the public URL clients use (behind a balancer), allowed in `Host`.
    public var publicHost: String?
    /// When set, `/metrics` answers only requests with `Authorization: Bearer TOKEN`
    /// (others get 401).
    public var metricsToken: String?
    /// File descriptors kept free for everything but connections (static files, upload
    /// spool files, logs): the connection table is sized to the open-file limit minus this.
    public var fileDescriptorReserve = 128
    /// Bytes that may wait in one connection's outgoing queue; past it the connection
    /// is closed with 1008 (a client that stopped reading).
    public var outgoingQueueLimitBytes = 4 * 1_048_576
    /// Bytes queued for sending across all connections; past it, a connection that asks to
    /// queue more is closed with 1008 "host outgoing budget" (clients that stop reading
    /// must not add up to the host's memory).
    public var maxOutgoingBytes = 256 * 1_048_576
    /// The kernel send buffer (`SO_SNDBUF`) of each accepted connection, in bytes (Linux
    /// doubles it for its bookkeeping); 0 leaves the kernel's, which grows to about 4 MB
    /// on a connection whose client stopped reading. What a socket does not take waits in
    /// the outgoing queue, under ``outgoingQueueLimitBytes`` and ``maxOutgoingBytes``.
    public var socketSendBufferBytes = 256 * 1_024
    /// libwebsockets' read size, and the receive buffer it allocates for every connection
    /// at the upgrade (`rx_buffer_size`, and `pt_serv_buf_size` when larger than its 4,096;
    /// at least 1,024). Larger reads cost less CPU per uploaded megabyte (about 10% at
    /// 65,536 against 4,096). The buffer comes from `ReceiveBufferArena`'s reserved address
    /// space, where only the pages lws writes to (control frames' payloads) cost memory, so
    /// its size costs an idle connection nothing: docs/benchmarks.md, "Memory per idle session".
    public var receiveBufferBytes = 65_536
    /// The folder served at `/`, or `nil` to serve no files.
    public var webRoot: String?
    /// How many seconds `stop()` waits for connections to close before cutting them.
    public var shutdownDeadlineSeconds = 2.0
    /// What the service thread waits on: libev (epoll; the default, its cost follows the
    /// active connections) or libwebsockets' `poll()` (no plugin needed; its cost follows
    /// every connection held). `start()` throws `WebSocketError.eventLibraryMissing` when
    /// the libev plugin is not installed.
    public var eventLoop: EventLoopBackend = .libev
    /// The level at which libwebsockets' own log lines are forwarded to the logger.
    public var libraryLogLevel: LogLevel = .warning

    /// Creates the default configuration.
    public init() {}
}
