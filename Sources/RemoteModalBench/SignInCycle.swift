import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalWebSocket

/// The demo sign-in cycle of issue 19: `sessions` clients of the demo host (`modal-host`),
/// each tapping `signIn`, answering the alert with Cancel and waiting for the cycle's
/// `controls` (busy), `present`, `dismiss`, `status` and `controls` (idle) before tapping
/// again (`SignInCycleStateMachine`). Latency is from sending the tap to the cycle's last
/// message (normally the idle `controls`). Any `error`, unexpected message, closed
/// connection or stalled session fails the run.
public struct SignInCycle: Sendable {
    /// The host's WebSocket URL.
    public var url: String
    /// Concurrent sessions, each running one cycle at a time.
    public var sessions = 1
    /// Seconds measured, after the warm-up.
    public var seconds = 5.0
    /// Seconds run before measuring.
    public var warmupSeconds = 1.0
    /// The server process, whose CPU time over the measured window is divided by the
    /// cycles completed in it; `nil` to skip.
    public var serverPID: Int32?
    /// Cycles a second each session starts at most (its next tap waits for the slot), so a
    /// bystander stays under the host's default message rate; `nil`: closed loop.
    public var pace: Double?

    /// Creates a workload.
    /// - Parameter url: The host's WebSocket URL.
    public init(url: String) {
        self.url = url
    }

    /// What one run measured.
    public struct Result: Sendable {
        /// Tap to the cycle's last message, for cycles completed in the measured window.
        public let latency: LatencyStats
        /// Cycles completed per second in the measured window, all sessions together.
        public let cyclesPerSecond: Double
        /// Cycles completed in the whole run, warm-up and the time to close included.
        public let totalCycles: Int
        /// The server's user plus system CPU time in the window per cycle completed in it (µs),
        /// when `serverPID` was given.
        public let serverCPUMicrosPerCycle: Double?
    }

    private struct State {
        var machines: [ConnectionID: SignInCycleStateMachine] = [:]
        var cyclesInWindow: [ConnectionID: Int] = [:]
        var samples: [Double] = []
        var measuring = false
        var failure: String?
        var stopping = false
    }

    private static let tap = "{\"type\":\"event\",\"control\":\"signIn\"}"

    private static func handle(
        _ client: WebSocketClient, _ id: ConnectionID, _ text: String, _ state: Locked<State>, pace: Double?
    ) {
        var delayed: Double?
        let send = state.withLock { state -> String? in
            guard state.failure == nil, var machine = state.machines[id] else { return nil }
            defer { state.machines[id] = machine }
            switch machine.received(text) {
            case .none:
                return nil
            case .tap:
                machine.tapped(at: nowMicros())
                return tap
            case .cancel(let modal):
                return "{\"type\":\"result\",\"id\":\"\(modal)\",\"value\":{\"action\":0,\"textFields\":[\"\",\"\"]}}"
            case .completed(let tappedAt):
                let now = nowMicros()
                if state.measuring {
                    state.samples.append(now - tappedAt)
                    state.cyclesInWindow[id, default: 0] += 1
                }
                if let pace {
                    // The next slot: one period after this cycle's tap.
                    delayed = max(0, tappedAt + 1e6 / pace - now) / 1e6
                    return nil
                }
                machine.tapped(at: nowMicros())
                return tap
            case .fail(let reason):
                state.failure = "session \(id.rawValue): \(reason)"
                return nil
            }
        }
        if let send { client.send(text: send, to: id) }
        if let delayed {
            DispatchQueue.global().asyncAfter(deadline: .now() + delayed) {
                let send = state.withLock { state -> Bool in
                    guard state.failure == nil, !state.stopping, var machine = state.machines[id] else { return false }
                    machine.tapped(at: nowMicros())
                    state.machines[id] = machine
                    return true
                }
                if send { client.send(text: tap, to: id) }
            }
        }
    }

    /// Runs the workload.
    /// - Returns: The measurements.
    /// - Throws: `WebSocketError.invalidState` when sessions cannot be opened or the host
    ///   breaks a cycle (the reason names the session and the message).
    public func run() throws -> Result {
        let state = Locked(State())
        let box = Locked<WebSocketClient?>(nil)
        let client = try WebSocketClient(
            logger: Logger(label: "bench", settings: LoggerSettings(level: .error)),
            onOpen: { id in
                state.withLock { $0.machines[id] = SignInCycleStateMachine() }
                let hello = helloText(
                    kind: "bench", name: "cycle-\(id.rawValue)", capabilities: ["alert", "actionSheet"])
                box.withLock { $0 }?.send(text: hello, to: id)
            },
            onMessage: { id, message in
                guard let client = box.withLock({ $0 }) else { return }
                guard case .text(let text) = message else {
                    state.withLock { $0.failure = $0.failure ?? "session \(id.rawValue): a binary frame" }
                    return
                }
                Self.handle(client, id, text, state, pace: pace)
            },
            onClose: { id, code, reason in
                state.withLock { state in
                    guard !state.stopping else { return }
                    state.failure = state.failure ?? "session \(id.rawValue) closed (\(code)): \(reason)"
                }
            },
            onFailure: { _, message in state.withLock { $0.failure = $0.failure ?? "connect failed: \(message)" } })
        box.withLock { $0 = client }
        defer {
            state.withLock { $0.stopping = true }
            client.stop(deadline: 2)
        }
        for _ in 0..<sessions { _ = try client.connect(url) }
        let ready = waitUntil(seconds: 60) {
            state.withLock { state in
                state.failure != nil || state.machines.values.filter { $0.cycles > 0 }.count >= sessions
            }
        }
        if let failure = state.withLock({ $0.failure }) { throw WebSocketError.invalidState(failure) }
        guard ready else {
            let started = state.withLock { $0.machines.values.filter { $0.cycles > 0 }.count }
            throw WebSocketError.invalidState("\(started) of \(sessions) sessions completed a first cycle in 60 s")
        }
        Thread.sleep(forTimeInterval: warmupSeconds)
        let cpuBefore = serverPID.flatMap(processCPUSeconds(pid:))
        let start = nowMicros()
        state.withLock { $0.measuring = true }
        Thread.sleep(forTimeInterval: seconds)
        let (samples, perSession) = state.withLock { state in
            state.measuring = false
            return (state.samples, state.cyclesInWindow)
        }
        let elapsed = (nowMicros() - start) / 1e6
        let cpuAfter = serverPID.flatMap(processCPUSeconds(pid:))
        // Sessions go on cycling until their connections close: count the cycles after that,
        // so that the host's count of answered modals is at most one a session above it.
        state.withLock { $0.stopping = true }
        client.stop(deadline: 2)
        let (total, failure) = state.withLock { state in
            (state.machines.values.reduce(0) { $0 + $1.cycles }, state.failure)
        }
        if let failure { throw WebSocketError.invalidState(failure) }
        let stalled = sessions - perSession.values.filter { $0 > 0 }.count
        guard stalled == 0 else {
            throw WebSocketError.invalidState("\(stalled) of \(sessions) sessions completed no cycle in the window")
        }
        var cpu: Double?
        if let cpuBefore, let cpuAfter, !samples.isEmpty { cpu = (cpuAfter - cpuBefore) * 1e6 / Double(samples.count) }
        return Result(
            latency: LatencyStats(samples: samples), cyclesPerSecond: Double(samples.count) / elapsed,
            totalCycles: total, serverCPUMicrosPerCycle: cpu)
    }
}

/// User plus system CPU time a process has used so far, from `/proc/PID/stat`.
/// - Parameter pid: The process id.
/// - Returns: Seconds, or `nil` when unreadable.
public func processCPUSeconds(pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return nil }
    // Fields after the command name: state is field 3, utime 14 and stime 15 (proc(5)).
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
