import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalWebSocket
import Synchronization
import Testing

/// A server that echoes every message back with its own opcode.
func makeEchoServer(
    _ configure: (inout WebSocketServerConfiguration) -> Void = { _ in }
) throws -> WebSocketServer {
    var configuration = WebSocketServerConfiguration()
    configuration.port = 0
    configuration.libraryLogLevel = .error
    configure(&configuration)
    let box = ServerBox()
    let server = try WebSocketServer(
        configuration: configuration, logger: Logger(label: "test-server", settings: quietLogs),
        onMessage: { id, message in box.server?.send(message, to: id) })
    box.server = server
    return server
}

let quietLogs = LoggerSettings(level: .error)

/// Lets the echo handler reach the server it belongs to.
final class ServerBox: Sendable {
    private let storage = Locked<WebSocketServer?>(nil)
    var server: WebSocketServer? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// Collects a client's events and lets tests wait for them.
final class ClientRecorder: Sendable {
    enum Item: Sendable, Equatable {
        case open
        case message(WebSocketMessage)
        case closed(CloseCode, String)
        case failed(String)
    }

    private let state = Locked<[ConnectionID: [Item]]>([:])
    private let signal = DispatchSemaphore(value: 0)

    func record(_ id: ConnectionID, _ item: Item) {
        state.withLock { $0[id, default: []].append(item) }
        signal.signal()
    }

    func items(_ id: ConnectionID) -> [Item] { state.withLock { $0[id] ?? [] } }

    func messages(_ id: ConnectionID) -> [WebSocketMessage] {
        items(id).compactMap { if case .message(let m) = $0 { m } else { nil } }
    }

    /// Waits until the condition holds, up to `seconds`.
    @discardableResult
    func wait(seconds: Double = 10, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            _ = signal.wait(timeout: .now() + .milliseconds(50))
        }
        return true
    }

    func makeClient(caFile: String? = nil) throws -> WebSocketClient {
        try WebSocketClient(
            caFile: caFile, logger: Logger(label: "test-client", settings: quietLogs),
            onOpen: { self.record($0, .open) },
            onMessage: { self.record($0, .message($1)) },
            onClose: { self.record($0, .closed($1, $2)) },
            onFailure: { self.record($0, .failed($1)) })
    }

    func isOpen(_ id: ConnectionID) -> Bool { items(id).contains(.open) }

    func closeCode(_ id: ConnectionID) -> CloseCode? {
        for item in items(id) { if case .closed(let code, _) = item { return code } }
        return nil
    }

    func failure(_ id: ConnectionID) -> String? {
        for item in items(id) { if case .failed(let message) = item { return message } }
        return nil
    }
}

/// A client connected to `server` and open, with its recorder (the caller stops it).
func connectedClient(to server: WebSocketServer) throws -> (ClientRecorder, WebSocketClient, ConnectionID) {
    let recorder = ClientRecorder()
    let client = try recorder.makeClient()
    let id = try client.connect("ws://127.0.0.1:\(server.port)/ws")
    #expect(recorder.wait { recorder.isOpen(id) })
    return (recorder, client, id)
}
