import Foundation
import RemoteModalClient
import RemoteModalLocking
import RemoteModalTransport
import RemoteModalWebSocket

/// A `ClientLink` on libwebsockets (`RemoteModalWebSocket`'s `WebSocketClient`): one
/// service thread, one connection per attempt, offering `remote-modal.v1`.
///
/// Only integer ids cross the service thread: the table maps connection ids to attempts.
public final class WebSocketLink: ClientLink {
    private struct Entry {
        var attempt: Int
        var events: @Sendable (LinkEvent) -> Void
        var closing = false
    }

    private struct Table {
        var entries: [ConnectionID: Entry] = [:]
        var ids: [Int: ConnectionID] = [:]
    }

    private let url: String
    // Held while `connect` runs and while an event looks its entry up, so an event that
    // arrives before `connect` returned waits for the entry to be recorded. A pthread mutex
    // (`Locked`), which ThreadSanitizer sees, unlike `Synchronization.Mutex`'s futex on
    // Linux: the service thread and the client's task meet here.
    private let table = Locked(Table())
    private let client = Locked<WebSocketClient?>(nil)

    /// Creates the link and its service thread.
    /// - Parameters:
    ///   - url: `ws://HOST:PORT/ws` or `wss://...` (an `affinity=` routing key may be in it).
    ///   - caFile: Extra certificate authorities for `wss://`.
    /// - Throws: When libwebsockets cannot create the client context.
    public init(url: String, caFile: String? = nil) throws {
        self.url = url
        let created = try WebSocketClient(
            caFile: caFile,
            onOpen: { [weak self] id in self?.deliver(id, .opened) },
            onMessage: { [weak self] id, message in
                guard case .text(let text) = message else { return }
                self?.deliver(id, .text(text))
            },
            onClose: { [weak self] id, code, reason in self?.deliver(id, .closed(code: code.rawValue, reason: reason))
            },
            onFailure: { [weak self] id, message in self?.deliver(id, .failed(Self.failure(message))) })
        client.withLock { $0 = created }
    }

    /// What a libwebsockets connection error says, as a `LinkFailure`.
    /// - Parameter message: The library's words.
    /// - Returns: The failure.
    public static func failure(_ message: String) -> LinkFailure {
        let lower = message.lowercased()
        if let range = lower.range(of: "response ") ?? lower.range(of: "status "),
            let status = Int(lower[range.upperBound...].prefix(3)), (100..<600).contains(status)
        {
            return .http(status)
        }
        if lower.contains("503") { return .http(503) }
        if lower.contains("not 101") { return .upgradeRefused(message) }
        // libwebsockets 4.1 says "Unable to connect" when the TCP connection is refused.
        if lower.contains("refused") || lower.contains("unable to connect") { return .refused }
        if lower.contains("reset") || lower.contains("timed out") || lower.contains("closed before") { return .reset }
        if lower.contains("tls") || lower.contains("ssl") || lower.contains("cert") { return .tls(message) }
        return .other(message)
    }

    /// Starts an attempt.
    /// - Parameters:
    ///   - attempt: Its number.
    ///   - events: Its events.
    public func open(attempt: Int, events: @escaping @Sendable (LinkEvent) -> Void) {
        guard let client = client.withLock({ $0 }) else { return events(.failed(.other("link stopped"))) }
        let malformed: Bool = table.withLock { table in
            guard let id = try? client.connect(url) else { return true }
            table.entries[id] = Entry(attempt: attempt, events: events)
            table.ids[attempt] = id
            return false
        }
        if malformed { events(.failed(.other("malformed URL"))) }
    }

    /// Sends on an attempt.
    /// - Parameters:
    ///   - text: The frame.
    ///   - attempt: The attempt.
    public func send(_ text: String, attempt: Int) {
        guard let id = table.withLock({ $0.ids[attempt] }) else { return }
        client.withLock { $0 }?.send(text: text, to: id)
    }

    /// Binary upload chunks go out as binary frames.
    public var sendsBinaryFrames: Bool { true }

    /// Sends a binary frame on an attempt.
    /// - Parameters:
    ///   - bytes: The frame's payload.
    ///   - attempt: The attempt.
    public func send(binary bytes: [UInt8], attempt: Int) {
        guard let id = table.withLock({ $0.ids[attempt] }) else { return }
        client.withLock { $0 }?.send(.binary(Data(bytes)), to: id)
    }

    /// Closes an attempt (at once, or as soon as it opens).
    /// - Parameters:
    ///   - attempt: The attempt.
    ///   - code: The close code.
    ///   - reason: A short reason.
    public func close(attempt: Int, code: UInt16, reason: String) {
        guard
            let id = table.withLock({ table -> ConnectionID? in
                guard let id = table.ids[attempt] else { return nil }
                table.entries[id]?.closing = true
                return id
            })
        else { return }
        client.withLock { $0 }?.close(id, code: CloseCode(rawValue: code), reason: reason)
    }

    /// Closes every connection and stops the service thread.
    public func stop() {
        let stopping = client.withLock { client -> WebSocketClient? in
            defer { client = nil }
            return client
        }
        stopping?.stop()
    }

    private func deliver(_ id: ConnectionID, _ event: LinkEvent) {
        let entry: Entry? = table.withLock { table in
            guard let entry = table.entries[id] else { return nil }
            switch event {
            case .closed, .failed:
                table.entries[id] = nil
                table.ids[entry.attempt] = nil
            case .opened, .text: break
            }
            return entry
        }
        guard let entry, !entry.closing else {
            if let entry, entry.closing, event == .opened { client.withLock { $0 }?.close(id, code: .goingAway) }
            return
        }
        entry.events(event)
    }
}
