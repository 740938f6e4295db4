import Foundation
import RemoteModalLocking
import RemoteModalWebSocket

/// Issue 31's crowd: `count` idle sessions, each welcomed (`hello` answered by `welcome`),
/// held open on one client (on libev: the client's own loop must not walk them all either);
/// then, while they are held, `probes` new sessions opened one after another, each timed
/// from `connect` to its `welcome`.
public final class Crowd: Sendable {
    /// What opening the crowd measured.
    public struct Result: Sendable {
        /// Sessions welcomed and held.
        public let held: Int
        /// Seconds to open and welcome them all.
        public let openSeconds: Double
        /// Connect to welcome of each probe, opened one at a time while the crowd is held.
        public let probes: LatencyStats
        /// Probes not welcomed within 10 s (left out of `probes`).
        public let lostProbes: Int
        /// Crowd connections the host cut before their welcome and that were opened again,
        /// one at a time (see ``Crowd/open(url:count:probes:batch:)``).
        public let reopened: Int
    }

    private struct State {
        var welcomed = 0
        var probeStarted: [ConnectionID: Double] = [:]
        /// Welcomes that came before their probe's start was recorded (the loop can open a
        /// connection and read its welcome before `connect` has returned to the caller).
        var earlyWelcomes: [ConnectionID: Double] = [:]
        /// The ids of the probes, so that an early welcome is known to be one.
        var probing = false
        var probeSamples: [Double] = []
    }

    private let state = Locked(State())
    private let bench: BenchClient
    private let localAddress: String?

    /// Opens the client (no connection yet).
    /// - Parameter localAddress: The local IP address every connection comes from, or `nil`
    ///   for the route's (see ``WebSocketClient/connect(_:subprotocol:origin:localAddress:)``).
    /// - Throws: When the client cannot start.
    public init(localAddress: String? = nil) throws {
        self.localAddress = localAddress
        let state = state
        bench = try BenchClient(
            eventLoop: .libev,
            onOpen: { client, id in
                client.send(text: helloText(kind: "crowd", name: "c\(id.rawValue)", capabilities: ["alert"]), to: id)
            },
            onText: { _, id, text in
                guard scanField("type", in: text) == "welcome" else { return }
                let now = nowMicros()
                state.withLock { state in
                    state.welcomed += 1
                    if let started = state.probeStarted.removeValue(forKey: id) {
                        state.probeSamples.append(now - started)
                    } else if state.probing {
                        state.earlyWelcomes[id] = now
                    }
                }
            })
    }

    /// Opens `count` sessions (at most `batch` being opened at once), then `probes` more
    /// one after another.
    ///
    /// A host whose connection table is in its last stretch cuts the oldest half-finished
    /// requests of the address holding the most of them (docs/security.md), which a crowd
    /// opened 500 at a time from one address is: the connections it cut are opened again and,
    /// from then on, one at a time (an address with one half-finished request is never cut),
    /// as a kiosk reconnects. At most `count / 4` are opened again.
    /// - Parameters:
    ///   - url: The host's WebSocket URL.
    ///   - count: Idle sessions to hold.
    ///   - probes: New sessions timed while the crowd is held.
    ///   - batch: Connections opening at once.
    /// - Returns: The measurements.
    /// - Throws: When the crowd is not welcomed (60 s for each batch), or more than
    ///   `count / 4` of its connections fail.
    public func open(url: String, count: Int, probes: Int = 200, batch: Int = 500) throws -> Result {
        let client = bench.client
        let first = nowMicros()
        var batch = batch
        var reopened = 0
        var failed = 0
        while state.withLock({ $0.welcomed }) < count {
            let welcomed = state.withLock { $0.welcomed }
            let asked = min(count - welcomed, batch)
            for _ in 0..<asked { _ = try client.connect(url, localAddress: localAddress) }
            guard
                waitUntil(
                    seconds: 60, { state.withLock { $0.welcomed } + bench.failureCount - failed >= welcomed + asked })
            else {
                throw WebSocketError.invalidState(
                    "only \(state.withLock { $0.welcomed }) of \(welcomed + asked) welcomed")
            }
            let failedNow = bench.failureCount - failed
            guard failedNow > 0 else { continue }
            failed += failedNow
            reopened += failedNow
            batch = 1
            if reopened > count / 4 {
                throw WebSocketError.invalidState("\(reopened) connections failed: \(bench.firstFailure ?? "")")
            }
        }
        let openSeconds = (nowMicros() - first) / 1e6
        var lost = 0
        state.withLock { $0.probing = true }
        for _ in 0..<probes {
            let before = state.withLock { $0.probeSamples.count }
            let started = nowMicros()
            let id = try client.connect(url, localAddress: localAddress)
            state.withLock { state in
                if let welcomed = state.earlyWelcomes.removeValue(forKey: id) {
                    state.probeSamples.append(welcomed - started)
                } else {
                    state.probeStarted[id] = started
                }
            }
            if !waitUntil(seconds: 10, { state.withLock { $0.probeSamples.count } > before }) {
                lost += 1
                state.withLock { _ = $0.probeStarted.removeValue(forKey: id) }
            }
        }
        let (welcomed, samples) = state.withLock { ($0.welcomed, $0.probeSamples) }
        return Result(
            held: welcomed, openSeconds: openSeconds, probes: LatencyStats(samples: samples), lostProbes: lost,
            reopened: reopened)
    }

    /// Closes every connection.
    public func release() { bench.client.stop(deadline: 10) }
}
