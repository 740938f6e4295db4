import Foundation
import Locking
import Logging
import ModalProtocol
import Synchronization
import WebSocket

/// The kiosk's side of the protocol: connects, says hello (resuming its session),
/// drops messages whose `seq` it has seen, re-sends unconfirmed answers after a resume,
/// and reconnects with exponential backoff and jitter when the connection drops.
public final class KioskConnection: Sendable {
    private struct State {
        var connection: ConnectionID?
        var session: String?
        var lastSeq = 0
        var unconfirmed: [String: ClientMessage] = [:]
        var order: [String] = []
        var attempt = 0
        var stopped = false
    }

    private let url: String
    private let hello: Hello
    private let state = Locked(State())
    private let client = Locked<WebSocketClient?>(nil)
    private let onMessage: @Sendable (HostMessage) -> Void
    private let onState: @Sendable (KioskModel.Connection) -> Void

    /// Creates a connection.
    /// - Parameters:
    ///   - url: The host's WebSocket URL.
    ///   - hello: The hello to send (its `resumeSession` is filled in on reconnects).
    ///   - caFile: Extra certificate authorities for `wss://`.
    ///   - affinity: The routing key a load balancer hashes (default: the group, so a
    ///     group's kiosks share a host; else random).
    ///   - onMessage: Each new host message.
    ///   - onState: Connection state changes.
    /// - Throws: When the client cannot be created.
    public init(
        url: String, hello: Hello, caFile: String?, affinity: String? = nil,
        onMessage: @escaping @Sendable (HostMessage) -> Void,
        onState: @escaping @Sendable (KioskModel.Connection) -> Void
    ) throws {
        // A routing key, not a secret: a load balancer hashes it so reconnects reach the same host.
        let key = affinity ?? hello.client.group ?? String(UInt64.random(in: 1...UInt64.max), radix: 36)
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "kiosk"
        self.url = url + (url.contains("?") ? "&" : "?") + "affinity=\(encoded)"
        self.hello = hello
        self.onMessage = onMessage
        self.onState = onState
        let created = try WebSocketClient(
            caFile: caFile, logger: Logger(label: "kiosk", settings: LoggerSettings(level: .error)),
            onOpen: { [weak self] id in self?.opened(id) },
            onMessage: { [weak self] _, message in
                guard case .text(let text) = message else { return }
                self?.received(text)
            },
            onClose: { [weak self] id, code, reason in
                self?.dropped(id, unauthorized: code == .policyViolation && reason == "unauthorized")
            },
            onFailure: { [weak self] id, _ in self?.dropped(id, unauthorized: false) })
        client.withLock { $0 = created }
    }

    /// Starts connecting.
    /// - Throws: For a malformed URL.
    public func start() throws {
        let id = try client.withLock { $0 }!.connect(url)
        state.withLock { $0.connection = id }
    }

    /// Sends a message; answers are kept and re-sent after a resume until dismissed.
    /// - Parameter message: The message.
    public func send(_ message: ClientMessage) {
        let id: ConnectionID? = state.withLock { state in
            switch message {
            case .result(let modal, _), .failure(let modal, _, _):
                if state.unconfirmed[modal] == nil { state.order.append(modal) }
                state.unconfirmed[modal] = message
            default: break
            }
            return state.connection
        }
        if let id { client.withLock { $0 }?.send(text: message.encode(), to: id) }
    }

    /// Closes for good.
    public func stop() {
        state.withLock { $0.stopped = true }
        client.withLock { $0 }?.stop()
    }

    private func opened(_ id: ConnectionID) {
        var hello = self.hello
        hello.resumeSession = state.withLock { $0.session }
        client.withLock { $0 }?.send(text: ClientMessage.hello(hello).encode(), to: id)
    }

    private func received(_ text: String) {
        guard let message = try? HostMessage.decode(text) else { return }
        let resend: [ClientMessage]? = state.withLock { state in
            if case .welcome(let session, let resumed, _) = message {
                if !resumed || session != state.session {
                    state.lastSeq = 0
                    state.unconfirmed = [:]
                    state.order = []
                }
                state.session = session
                state.attempt = 0
                return state.order.compactMap { state.unconfirmed[$0] }
            }
            if let seq = message.seq, case .error = message {
                _ = seq
            } else if let seq = message.seq {
                guard seq > state.lastSeq else { return nil }
                state.lastSeq = seq
            }
            if case .dismiss(_, let id, _) = message {
                state.unconfirmed[id] = nil
                state.order.removeAll { $0 == id }
            }
            return []
        }
        guard let resend else { return }
        if case .welcome = message { onState(.connected) }
        onMessage(message)
        for answer in resend { send(answer) }
    }

    private func dropped(_ id: ConnectionID, unauthorized: Bool) {
        let attempt: Int? = state.withLock { state in
            guard state.connection == id, !state.stopped else { return nil }
            state.connection = nil
            defer { state.attempt += 1 }
            return state.attempt
        }
        guard let attempt else { return }
        if unauthorized {
            onState(.unauthorized)
            return
        }
        onState(.reconnecting)
        let ceiling = min(15.0, 0.5 * pow(2.0, Double(attempt)))
        let delay = Double.random(in: 0.2...max(0.2, ceiling))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, !self.state.withLock({ $0.stopped }) else { return }
            if let id = try? self.client.withLock({ $0 })?.connect(self.url) {
                self.state.withLock { $0.connection = id }
            }
        }
    }
}
