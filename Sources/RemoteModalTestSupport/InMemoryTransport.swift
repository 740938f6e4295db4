import RemoteModalHost
import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalTransport
import Synchronization

/// A transport without sockets: tests open fake client connections, send them through
/// the host and read what the host sent back. Deterministic and fast.
public final class InMemoryTransport: HostTransport {
    struct State {
        var events: TransportEvents?
        var outbox: [ConnectionID: [String]] = [:]
        var closes: [ConnectionID: (CloseCode, String)] = [:]
        var nextID: UInt64 = 1
        var stopped = false
        /// Connections whose frames and close are pushed as they happen (`InMemoryLink`).
        var listeners: [ConnectionID: Listener] = [:]
    }

    /// Where an `InMemoryLink` connection's frames and close go.
    struct Listener {
        var frame: @Sendable (String) -> Void
        var closed: @Sendable (CloseCode, String) -> Void
    }

    let state = Locked(State())

    /// Creates a transport.
    public init() {}

    /// Opens a fake client connection.
    /// - Parameters:
    ///   - origin: The `Origin` of the upgrade.
    ///   - peer: The peer address.
    ///   - clientAddress: The client's address when the peer is a trusted proxy (default: the peer).
    /// - Returns: The client end.
    public func connect(origin: String? = nil, peer: String = "127.0.0.1", clientAddress: String? = nil) -> TestClient {
        connect(origin: origin, peer: peer, clientAddress: clientAddress, listener: nil)
    }

    func connect(origin: String?, peer: String, clientAddress: String?, listener: Listener?) -> TestClient {
        let (id, events): (ConnectionID, TransportEvents?) = state.withLock { state in
            defer { state.nextID += 1 }
            let id = ConnectionID(rawValue: state.nextID)
            state.outbox[id] = []
            state.listeners[id] = listener
            return (id, state.events)
        }
        events?.opened(
            id,
            ConnectionInfo(
                path: "/ws", origin: origin, peerAddress: peer, clientAddress: clientAddress,
                subprotocol: "remote-modal.v1"))
        return TestClient(id: id, transport: self)
    }

    func deliver(_ message: WebSocketMessage, from id: ConnectionID) {
        let events: TransportEvents? = state.withLock { state in
            state.closes[id] == nil ? state.events : nil
        }
        events?.message(id, message)
    }

    func drop(_ id: ConnectionID, code: CloseCode) {
        let events: TransportEvents? = state.withLock { state in
            guard state.closes[id] == nil else { return nil }
            state.closes[id] = (code, "")
            state.listeners[id] = nil
            return state.events
        }
        events?.closed(id, code, "")
    }

    /// Starts delivering events.
    /// - Parameter events: The host's handlers.
    public func start(events: TransportEvents) throws {
        state.withLock { $0.events = events }
    }

    /// Records a frame for the fake client.
    /// - Parameters:
    ///   - text: The frame.
    ///   - connection: The connection.
    public func send(_ text: String, to connection: ConnectionID) {
        let listener: Listener? = state.withLock { state in
            guard state.closes[connection] == nil else { return nil }
            guard let listener = state.listeners[connection] else {
                state.outbox[connection, default: []].append(text)
                return nil
            }
            return listener
        }
        listener?.frame(text)
    }

    /// Closes a fake connection as the host asked.
    /// - Parameters:
    ///   - connection: The connection.
    ///   - code: The close code.
    ///   - reason: The reason.
    public func close(_ connection: ConnectionID, code: CloseCode, reason: String) {
        let (events, listener): (TransportEvents?, Listener?) = state.withLock { state in
            guard state.closes[connection] == nil else { return (nil, nil) }
            state.closes[connection] = (code, reason)
            return (state.events, state.listeners.removeValue(forKey: connection))
        }
        events?.closed(connection, code, reason)
        listener?.closed(code, reason)
    }

    /// Closes every open connection with 1001.
    public func stop() {
        let open: [ConnectionID] = state.withLock { state in
            state.stopped = true
            return state.outbox.keys.filter { state.closes[$0] == nil }.sorted()
        }
        for id in open { close(id, code: .goingAway, reason: "host shutting down") }
    }

    /// Counters (only open connections are tracked here).
    public var stats: TransportStats {
        state.withLock { state in
            var stats = TransportStats()
            stats.openConnections = state.outbox.keys.filter { state.closes[$0] == nil }.count
            return stats
        }
    }
}

/// The client end of an in-memory connection.
public final class TestClient: Sendable {
    /// The connection id.
    public let id: ConnectionID
    private let transport: InMemoryTransport

    init(id: ConnectionID, transport: InMemoryTransport) {
        self.id = id
        self.transport = transport
    }

    /// Sends a protocol message.
    /// - Parameter message: The message.
    public func send(_ message: ClientMessage) { transport.deliver(.text(message.encode()), from: id) }

    /// Sends raw text (malformed input tests).
    /// - Parameter text: The frame.
    public func send(raw text: String) { transport.deliver(.text(text), from: id) }

    /// Sends a binary frame.
    /// - Parameter bytes: The payload.
    public func sendBinary(_ bytes: [UInt8]) { transport.deliver(.binary(.init(bytes)), from: id) }

    /// Sends `hello`.
    /// - Parameters:
    ///   - name: The client name.
    ///   - group: The group.
    ///   - capabilities: The capabilities.
    ///   - token: The access token.
    ///   - resume: The session to resume.
    public func hello(
        name: String = "test", group: String? = nil, capabilities: [String] = ["alert", "actionSheet"],
        token: String? = nil, resume: String? = nil
    ) {
        send(
            .hello(
                Hello(
                    client: ClientDescription(kind: "test", name: name, group: group), capabilities: capabilities,
                    token: token, resumeSession: resume)))
    }

    /// Every frame the host sent this connection, as text.
    public var frames: [String] { transport.state.withLock { $0.outbox[id] ?? [] } }

    /// Forgets the frames received so far (long-running tests keep memory flat with it).
    public func clearFrames() { transport.state.withLock { $0.outbox[id] = [] } }

    /// Forgets this connection altogether once it is closed (its frames and close record).
    public func forget() {
        transport.state.withLock { state in
            state.outbox[id] = nil
            state.closes[id] = nil
        }
    }

    /// Every message the host sent this connection, decoded.
    public var received: [HostMessage] { frames.compactMap { try? HostMessage.decode($0) } }

    /// The session id from `welcome`, if any.
    public var session: String? {
        for message in received { if case .welcome(let session, _, _, _, _) = message { return session } }
        return nil
    }

    /// The `present` messages received, as (id, modal).
    public var presents: [(id: String, modal: ModalDescription)] {
        received.compactMap { if case .present(_, let id, let modal, _) = $0 { (id, modal) } else { nil } }
    }

    /// The `dismiss` messages received, as (id, reason).
    public var dismissals: [(id: String, reason: DismissReason)] {
        received.compactMap { if case .dismiss(_, let id, let reason) = $0 { (id, reason) } else { nil } }
    }

    /// The `error` codes received.
    public var errors: [ErrorCode] {
        received.compactMap { if case .error(_, let error) = $0 { error.code } else { nil } }
    }

    /// The `status` texts received.
    public var statuses: [String] {
        received.compactMap { if case .status(_, _, let text) = $0 { text } else { nil } }
    }

    /// The latest `controls` list.
    public var controls: [ControlItem]? {
        received.reversed().lazy.compactMap { if case .controls(_, let items) = $0 { items } else { nil } }.first
    }

    /// The close code, once the host closed the connection.
    public var closeCode: CloseCode? { transport.state.withLock { $0.closes[id]?.0 } }

    /// Drops the connection as a network failure would.
    public func disconnect() { transport.drop(id, code: .abnormal) }
}
