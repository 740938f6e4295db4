import Foundation
import RemoteModalLocking
import RemoteModalWebSocket

/// Workload (1) of the modal benchmark: `sessions` bench clients, each answering every
/// `present` as soon as it arrives (action 0), against a host that presents the next alert
/// as soon as the previous Single has its value. The client-side round trip is the time
/// from sending a `result` to receiving the next `present` (the host accepted the answer,
/// the Single completed, the next alert was subscribed and presented).
public struct ModalRoundTrip: Sendable {
    /// The host's WebSocket URL.
    public var url: String
    /// Concurrent sessions, each with one modal at a time.
    public var sessions = 10
    /// Seconds measured, after the warm-up.
    public var seconds = 5.0
    /// Seconds run before measuring.
    public var warmupSeconds = 1.0

    /// Creates a workload.
    /// - Parameter url: The host's WebSocket URL.
    public init(url: String) {
        self.url = url
    }

    /// What one run measured.
    public struct Result: Sendable {
        /// Client-side round trips (result sent to next present received).
        public let latency: LatencyStats
        /// Round trips completed per second, all sessions together.
        public let roundTripsPerSecond: Double
    }

    private struct State {
        var lastResultAt: [ConnectionID: Double] = [:]
        var samples: [Double] = []
        var measuring = false
        var welcomed = 0
    }

    private static func answer(_ client: WebSocketClient, _ id: ConnectionID, _ text: String, _ state: Locked<State>) {
        guard let type = scanField("type", in: text) else { return }
        if type == "welcome" {
            state.withLock { $0.welcomed += 1 }
            return
        }
        guard type == "present", let modal = scanField("id", in: text) else { return }
        let now = nowMicros()
        state.withLock { state in
            if state.measuring, let sent = state.lastResultAt[id] { state.samples.append(now - sent) }
            state.lastResultAt[id] = nowMicros()
        }
        client.send(
            text: "{\"type\":\"result\",\"id\":\"\(modal)\",\"value\":{\"action\":0,\"textFields\":[]}}", to: id)
    }

    /// Runs the workload. `between` is called after the warm-up and after the measurement
    /// (the bench uses it to reset and then read the host's own figures).
    /// - Parameter between: Called with `true` when measuring starts, `false` when it ends.
    /// - Returns: The measurements.
    /// - Throws: When the sessions cannot be opened.
    public func run(between: (Bool) -> Void = { _ in }) throws -> Result {
        let state = Locked(State())
        let bench = try BenchClient(
            onOpen: { client, id in
                client.send(text: helloText(kind: "bench", name: "b\(id.rawValue)", capabilities: ["alert"]), to: id)
            },
            onText: { client, id, text in Self.answer(client, id, text, state) })
        defer { bench.client.stop(deadline: 2) }
        let client = bench.client
        for _ in 0..<sessions { _ = try client.connect(url) }
        guard waitUntil(seconds: 60, { state.withLock { $0.welcomed } >= sessions || bench.failureCount > 0 }),
            bench.failureCount == 0
        else {
            throw WebSocketError.invalidState(
                "\(state.withLock { $0.welcomed }) of \(sessions) sessions welcomed; \(bench.firstFailure ?? "")")
        }
        Thread.sleep(forTimeInterval: warmupSeconds)
        between(true)
        let start = nowMicros()
        state.withLock { $0.measuring = true }
        Thread.sleep(forTimeInterval: seconds)
        let samples = state.withLock { state -> [Double] in
            state.measuring = false
            return state.samples
        }
        let elapsed = (nowMicros() - start) / 1e6
        between(false)
        return Result(latency: LatencyStats(samples: samples), roundTripsPerSecond: Double(samples.count) / elapsed)
    }
}

/// Fetches `http://HOST:PORT/PATH` of a `ws://HOST:PORT/...` URL (plain HTTP/1.1, loopback
/// bench use only) and returns the body.
/// - Parameters:
///   - webSocketURL: The host's WebSocket URL.
///   - path: The path to fetch.
/// - Returns: The response body, or `nil` when the request failed.
public func httpGet(webSocketURL: String, path: String) -> String? {
    guard let components = URLComponents(string: webSocketURL), let host = components.host,
        let port = components.port
    else { return nil }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return nil }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        response.append(contentsOf: buffer[0..<count])
        if let body = completeBody(response) { return body }
    }
    // Closed without a Content-Length: everything after the headers.
    let text = String(decoding: response, as: UTF8.self)
    return text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) }
}

/// The body of a complete HTTP response with `Content-Length`, else `nil`.
private func completeBody(_ response: [UInt8]) -> String? {
    let text = String(decoding: response, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { return nil }
    let headers = text[..<split.lowerBound].lowercased()
    let body = String(text[split.upperBound...])
    guard let line = headers.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
        let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
    else { return nil }
    return body.utf8.count >= length ? body : nil
}
