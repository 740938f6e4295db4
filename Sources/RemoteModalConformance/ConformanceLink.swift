import Foundation
import RemoteModalTransport

/// What the transport reports, queued for the scenario thread.
enum LinkEvent: Sendable {
    case opened(ConnectionID)
    case message(ConnectionID, String)
    case binary(ConnectionID, [UInt8])
    case closed(ConnectionID, CloseCode, String)
    /// A host-served web-authentication callback (`/auth/callback/NONCE`).
    case callback(HTTPRequest)
}

/// The transport's events in one queue, read by the thread that runs the scenarios with a
/// deadline on every wait; sends go straight to the transport (which hands them to its own
/// thread).
final class ConformanceLink: @unchecked Sendable {
    let transport: any HostTransport
    private let condition = NSCondition()
    private var queue: [LinkEvent] = []
    private var redirects: [String: String] = [:]

    init(transport: any HostTransport) {
        self.transport = transport
    }

    func start() throws {
        try transport.start(
            events: TransportEvents(
                opened: { [weak self] id, _ in self?.push(.opened(id)) },
                message: { [weak self] id, message in
                    switch message {
                    case .text(let text): self?.push(.message(id, text))
                    case .binary(let data): self?.push(.binary(id, [UInt8](data)))
                    }
                },
                closed: { [weak self] id, code, reason in self?.push(.closed(id, code, reason)) },
                route: { [weak self] request in self?.route(request) }))
    }

    /// A path that answers 302 to `location` (the identity provider's part of a web
    /// authentication).
    func redirect(_ path: String, to location: String) {
        condition.lock()
        redirects[path] = location
        condition.unlock()
    }

    /// The registered redirects; `/auth/callback/...` is the host-served callback.
    func route(_ request: HTTPRequest) -> HTTPResponse? {
        condition.lock()
        let target = redirects[request.path]
        condition.unlock()
        if let target {
            return HTTPResponse(
                status: 302, contentType: "text/plain; charset=utf-8", body: Data("redirecting\n".utf8),
                headers: [("Location", target)])
        }
        if request.path.hasPrefix("/auth/callback/") {
            push(.callback(request))
            return .html(
                200,
                "<!doctype html><title>Signed in</title><p>Done: you may close this window.</p><script>window.close()</script>"
            )
        }
        return nil
    }

    func push(_ event: LinkEvent) {
        condition.lock()
        queue.append(event)
        condition.signal()
        condition.unlock()
    }

    /// The next event, or nil once `deadline` passes.
    func next(until deadline: Date) -> LinkEvent? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty {
            if !condition.wait(until: deadline) && queue.isEmpty { return nil }
        }
        return queue.removeFirst()
    }

    func send(_ text: String, to connection: ConnectionID) { transport.send(text, to: connection) }

    func close(_ connection: ConnectionID, code: CloseCode, reason: String) {
        transport.close(connection, code: code, reason: reason)
    }

    func stop() { transport.stop() }
}
