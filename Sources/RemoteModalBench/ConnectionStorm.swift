import Foundation
import RemoteModalLocking
import RemoteModalWebSocket

/// Workload (2) of the modal benchmark: `count` clients connect at once, each sends
/// `hello` on open, and the time from `connect` to `welcome` is measured per client.
public struct ConnectionStorm: Sendable {
    /// The host's WebSocket URL.
    public var url: String
    /// Clients.
    public var count = 5_000

    /// Creates a workload.
    /// - Parameter url: The host's WebSocket URL.
    public init(url: String) {
        self.url = url
    }

    /// What one storm measured.
    public struct Result: Sendable {
        /// Connect to welcome, per client.
        public let latency: LatencyStats
        /// Seconds from the first connect to the last welcome.
        public let seconds: Double
        /// Clients welcomed.
        public let welcomed: Int
    }

    private struct State {
        var started: [ConnectionID: Double] = [:]
        var samples: [Double] = []
        var lastWelcome = 0.0
    }

    /// Runs the storm, then closes every connection.
    /// - Returns: The measurements.
    /// - Throws: When the client cannot start.
    public func run(timeout: Double = 120) throws -> Result {
        let state = Locked(State())
        let bench = try BenchClient(
            onOpen: { client, id in
                client.send(text: helloText(kind: "storm", name: "s\(id.rawValue)", capabilities: []), to: id)
            },
            onText: { _, id, text in
                guard scanField("type", in: text) == "welcome" else { return }
                let now = nowMicros()
                state.withLock { state in
                    if let started = state.started[id] { state.samples.append(now - started) }
                    state.lastWelcome = now
                }
            })
        defer { bench.client.stop(deadline: 5) }
        let client = bench.client
        let first = nowMicros()
        for _ in 0..<count {
            let started = nowMicros()
            let id = try client.connect(url)
            state.withLock { $0.started[id] = started }
        }
        _ = waitUntil(seconds: timeout) {
            state.withLock { $0.samples.count } + bench.failureCount >= count
        }
        let (samples, last) = state.withLock { ($0.samples, $0.lastWelcome) }
        return Result(latency: LatencyStats(samples: samples), seconds: (last - first) / 1e6, welcomed: samples.count)
    }
}

/// Workload (4) of the modal benchmark: one session with a pending alert drops its
/// connection and resumes, `count` times; measured from `connect` to the pending alert's
/// `present` on the new connection.
public struct ResumeLoad: Sendable {
    /// The host's WebSocket URL.
    public var url: String
    /// Reconnections.
    public var count = 500

    /// Creates a workload.
    /// - Parameter url: The host's WebSocket URL.
    public init(url: String) {
        self.url = url
    }

    private struct State {
        var session: String?
        var pending: String?
        var presentedOn: ConnectionID?
        var presentedAt = 0.0
    }

    private static func observe(_ id: ConnectionID, _ text: String, _ state: Locked<State>) {
        switch scanField("type", in: text) {
        case "welcome":
            let session = scanField("session", in: text).map(String.init)
            state.withLock { if $0.session == nil { $0.session = session } }
        case "present":
            let modal = scanField("id", in: text).map(String.init)
            let now = nowMicros()
            state.withLock { state in
                if state.pending == nil { state.pending = modal }
                if modal == state.pending, state.presentedOn != id {
                    state.presentedOn = id
                    state.presentedAt = now
                }
            }
        default:
            break
        }
    }

    /// Runs the reconnections one after another.
    /// - Returns: Reconnect-to-present latency.
    /// - Throws: When a reconnection does not see its modal within 10 seconds.
    public func run() throws -> LatencyStats {
        let state = Locked(State())
        let bench = try BenchClient(
            onOpen: { client, id in
                let session = state.withLock { $0.session }
                client.send(
                    text: helloText(kind: "bench", name: "resume", capabilities: ["alert"], resume: session), to: id)
            },
            onText: { _, id, text in Self.observe(id, text, state) })
        defer { bench.client.stop(deadline: 2) }
        let client = bench.client
        var connection = try client.connect(url)
        guard waitUntil(seconds: 10, { state.withLock { $0.presentedOn } == connection }) else {
            throw WebSocketError.invalidState("the first alert was not presented")
        }
        var samples: [Double] = []
        for round in 0..<count {
            client.close(connection, code: .goingAway)
            let started = nowMicros()
            connection = try client.connect(url)
            let current = connection
            guard waitUntil(seconds: 10, { state.withLock { $0.presentedOn } == current }) else {
                throw WebSocketError.invalidState("resume \(round): the pending alert was not re-presented")
            }
            samples.append(state.withLock { $0.presentedAt } - started)
        }
        return LatencyStats(samples: samples)
    }
}
