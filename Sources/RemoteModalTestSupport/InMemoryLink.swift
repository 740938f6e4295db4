import RemoteModalClient
import RemoteModalTransport
import Synchronization

/// A `ClientLink` to a `ModalHost` on an `InMemoryTransport`: no socket, the host's frames
/// pushed to the client as the host sends them. `drop()` cuts the connection as a network would.
public final class InMemoryLink: ClientLink {
    private struct Open {
        var client: TestClient
        var events: @Sendable (LinkEvent) -> Void
    }

    private let transport: InMemoryTransport
    private let open = Mutex<[Int: Open]>([:])
    private let refusing = Mutex(false)

    /// Creates a link to the host behind `transport`.
    /// - Parameter transport: The host's transport.
    public init(_ transport: InMemoryTransport) { self.transport = transport }

    /// Starts an attempt: a new in-memory connection (or `failed(.refused)` while refusing).
    /// - Parameters:
    ///   - attempt: Its number.
    ///   - events: Its events.
    public func open(attempt: Int, events: @escaping @Sendable (LinkEvent) -> Void) {
        if refusing.withLock({ $0 }) { return events(.failed(.refused)) }
        let listener = InMemoryTransport.Listener(
            frame: { events(.text($0)) },
            closed: { code, reason in events(.closed(code: code.rawValue, reason: reason)) })
        let client = transport.connect(origin: nil, peer: "127.0.0.1", clientAddress: nil, listener: listener)
        open.withLock { $0[attempt] = Open(client: client, events: events) }
        events(.opened)
    }

    /// Sends a frame to the host.
    /// - Parameters:
    ///   - text: The frame.
    ///   - attempt: The attempt.
    public func send(_ text: String, attempt: Int) {
        open.withLock { $0[attempt]?.client }?.send(raw: text)
    }

    /// Binary frames reach the host as binary.
    public var sendsBinaryFrames: Bool { true }

    /// Sends a binary frame to the host.
    /// - Parameters:
    ///   - bytes: The frame's payload.
    ///   - attempt: The attempt.
    public func send(binary bytes: [UInt8], attempt: Int) {
        open.withLock { $0[attempt]?.client }?.sendBinary(bytes)
    }

    /// Closes an attempt (the host sees the connection drop).
    /// - Parameters:
    ///   - attempt: The attempt.
    ///   - code: The close code.
    ///   - reason: The reason.
    public func close(attempt: Int, code: UInt16, reason: String) {
        open.withLock { $0.removeValue(forKey: attempt) }?.client.disconnect()
    }

    /// Cuts every open connection as a network failure would: the host and the client both
    /// see 1006.
    public func drop() {
        let cut = open.withLock { open -> [Open] in
            defer { open = [:] }
            return Array(open.values)
        }
        for entry in cut {
            entry.client.disconnect()
            entry.events(.closed(code: 1006, reason: ""))
        }
    }

    /// While `true`, new attempts fail as refused connections.
    /// - Parameter refuse: Whether to refuse.
    public func refuse(_ refuse: Bool) { refusing.withLock { $0 = refuse } }
}
