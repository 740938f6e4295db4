import RemoteModalTransport

/// The events a loop reports. Every closure runs on the loop's service thread and must
/// not block: hand work to another queue.
struct LoopHandlers: Sendable {
    var opened: @Sendable (ConnectionID, ConnectionInfo) -> Void = { _, _ in }
    var message: @Sendable (ConnectionID, WebSocketMessage) -> Void = { _, _ in }
    var closed: @Sendable (ConnectionID, CloseCode, String) -> Void = { _, _, _ in }
    var connectFailed: @Sendable (ConnectionID, String) -> Void = { _, _ in }
    var route: HTTPRoute = { _ in nil }
}
