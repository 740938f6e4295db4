import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalWebSocket
import Synchronization

/// Drives an echo server: N connections, each keeping `window` messages in flight
/// (closed loop), or a fixed total rate (open loop); measures round trips.
public struct EchoLoad: Sendable {
    /// The server URL.
    public var url: String
    /// Connections.
    public var connections = 10
    /// Messages per connection (closed loop) or in total (open loop).
    public var messages = 10_000
    /// Messages in flight per connection (closed loop).
    public var window = 8
    /// Total messages a second (open loop), or `nil` for closed loop.
    public var rate: Double?
    /// Payload size in bytes.
    public var payloadBytes = 64
    /// Subprotocol to offer.
    public var subprotocol: String? = nil
    /// Closed loop for this long (after a one-second warm-up), instead of a message count.
    public var seconds: Double?
    /// The server process, whose CPU time over the measured window (closed loop for
    /// `seconds`) is divided by the messages echoed in it; `nil` to skip.
    public var serverPID: Int32?

    /// Creates a load description.
    /// - Parameter url: The server URL.
    public init(url: String) {
        self.url = url
    }

    /// The outcome of a run.
    public struct Result: Sendable {
        /// Round-trip latency.
        public let latency: LatencyStats
        /// Echoed messages a second.
        public let messagesPerSecond: Double
        /// Messages sent but never echoed.
        public let lost: Int
        /// The server's user plus system CPU time per echoed message in the measured window
        /// (µs), when `serverPID` was given and the load ran for `seconds`.
        public var serverCPUMicrosPerMessage: Double?
    }

    /// Runs the load and waits for it to finish (or `timeout` seconds).
    /// - Parameter timeout: The longest the run may take.
    /// - Returns: The measurements.
    /// - Throws: When connections cannot be opened.
    public func run(timeout: Double = 120) throws -> Result {
        let state = LoadState(payloadBytes: payloadBytes)
        let clientBox = Locked<WebSocketClient?>(nil)
        let closedLoop = rate == nil
        let perConnection = seconds == nil ? messages : Int.max
        let client = try WebSocketClient(
            logger: Logger(label: "bench", settings: LoggerSettings(level: .error)),
            onOpen: { id in state.opened(id) },
            onMessage: { id, message in
                guard case .text(let text) = message else { return }
                let due = state.received(id, text, limit: closedLoop ? perConnection : nil)
                if due, let client = clientBox.withLock({ $0 }) {
                    client.send(text: state.payload(), to: id)
                }
            },
            onFailure: { _, message in state.failed(message) })
        clientBox.withLock { $0 = client }
        defer { client.stop() }
        let ids = try (0..<connections).map { _ in try client.connect(url, subprotocol: subprotocol) }
        guard state.waitOpen(connections, seconds: 30) else {
            throw WebSocketError.invalidState("only \(state.openCount) of \(connections) connections opened")
        }
        let start = ContinuousClock.now
        if let seconds {
            state.setWindow(from: 1, seconds: seconds)
        }
        let expected: Int
        if let rate {
            expected = messages
            let interval = 1.0 / rate
            var next = Date()
            for index in 0..<messages {
                let delay = next.timeIntervalSinceNow
                if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                let id = ids[index % ids.count]
                state.sent(id)
                client.send(text: state.payload(), to: id)
                next = next.addingTimeInterval(interval)
            }
        } else {
            expected = messages * connections
            for id in ids {
                for _ in 0..<min(window, messages) {
                    state.sent(id)
                    client.send(text: state.payload(), to: id)
                }
            }
        }
        if let seconds {
            Thread.sleep(forTimeInterval: 1)
            let cpuBefore = serverPID.flatMap(processCPUSeconds(pid:))
            Thread.sleep(forTimeInterval: seconds)
            let cpuAfter = serverPID.flatMap(processCPUSeconds(pid:))
            state.endWindow()
            let samples = state.samples
            var result = Result(
                latency: LatencyStats(samples: samples), messagesPerSecond: Double(samples.count) / seconds, lost: 0)
            if let cpuBefore, let cpuAfter, !samples.isEmpty {
                result.serverCPUMicrosPerMessage = (cpuAfter - cpuBefore) * 1e6 / Double(samples.count)
            }
            return result
        }
        state.waitReceived(expected, seconds: timeout)
        let elapsed = (ContinuousClock.now - start)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let samples = state.samples
        return Result(
            latency: LatencyStats(samples: samples), messagesPerSecond: Double(samples.count) / seconds,
            lost: expected - samples.count, serverCPUMicrosPerMessage: nil)
    }
}

/// Shared counters of one run; the payload carries its send time.
final class LoadState: Sendable {
    private struct State {
        var open = Set<ConnectionID>()
        var sentPerConnection: [ConnectionID: Int] = [:]
        var samples: [Double] = []
        var failures: [String] = []
        /// Samples are kept only for replies received inside this window (ns since origin).
        var window: Range<Int64>?
        var stopped = false
    }

    private let state = Locked(State())
    private let signal = DispatchSemaphore(value: 0)
    private let padding: String
    private let origin = ContinuousClock.now

    init(payloadBytes: Int) {
        padding = String(repeating: "x", count: max(0, payloadBytes - 24))
    }

    func payload() -> String {
        let elapsed = ContinuousClock.now - origin
        let nanos = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        return "\(nanos)|\(padding)"
    }

    func opened(_ id: ConnectionID) {
        state.withLock { _ = $0.open.insert(id) }
        signal.signal()
    }

    func failed(_ message: String) {
        state.withLock { $0.failures.append(message) }
        signal.signal()
    }

    var openCount: Int { state.withLock { $0.open.count } }

    /// Keeps samples only from `from` seconds after now, for `seconds`.
    func setWindow(from: Double, seconds: Double) {
        let elapsed = ContinuousClock.now - origin
        let now = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        let start = now + Int64(from * 1e9)
        state.withLock { $0.window = start..<(start + Int64(seconds * 1e9)) }
    }

    /// Stops the closed loop: no connection sends again.
    func endWindow() { state.withLock { $0.stopped = true } }

    func sent(_ id: ConnectionID) { state.withLock { $0.sentPerConnection[id, default: 0] += 1 } }

    /// Records a round trip; returns whether the connection should send another.
    func received(_ id: ConnectionID, _ text: String, limit: Int?) -> Bool {
        let elapsed = ContinuousClock.now - origin
        let now = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        let sentAt = Int64(text.prefix { $0 != "|" }) ?? now
        let due = state.withLock { state -> Bool in
            if state.window?.contains(now) ?? true { state.samples.append(Double(now - sentAt) / 1_000) }
            guard let limit, !state.stopped, state.sentPerConnection[id, default: 0] < limit else { return false }
            state.sentPerConnection[id, default: 0] += 1
            return true
        }
        signal.signal()
        return due
    }

    var samples: [Double] { state.withLock { $0.samples } }

    func waitOpen(_ count: Int, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while openCount < count {
            if Date() > deadline || state.withLock({ !$0.failures.isEmpty }) { return false }
            _ = signal.wait(timeout: .now() + .milliseconds(100))
        }
        return true
    }

    func waitReceived(_ count: Int, seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while state.withLock({ $0.samples.count }) < count, Date() < deadline {
            _ = signal.wait(timeout: .now() + .milliseconds(100))
        }
    }
}
