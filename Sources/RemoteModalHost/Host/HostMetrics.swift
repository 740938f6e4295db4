import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalTransport
import Synchronization

/// Counters and the latency histogram behind `/metrics`. Updated by the host executor,
/// read from the transport's thread; all behind one mutex.
final class HostMetrics: Sendable {
    struct Counters {
        var sessions = 0
        var sessionsCreated = 0
        var sessionsResumed = 0
        var sessionsExpired = 0
        var connections = 0
        var presented = 0
        var resolved = 0
        /// By `DismissReason.metricsIndex` (an array: a dictionary hashed the reason's name
        /// for every dismiss).
        var dismissed = Array(repeating: 0, count: DismissReason.allCases.count)
        var errors: [ErrorCode: Int] = [:]
        var sessionsEvicted = 0
        /// Hellos that waited for a later loop turn (`helloMicrosecondsPerTurn`), and how
        /// many wait now.
        var hellosDeferred = 0
        var hellosWaiting = 0
        var admissionsRefused: [String: Int] = [:]
        var uploadBytes = 0
        var uploadChunksRefused = 0
        var uploadsDropped = 0
        var uploadMemoryBytes = 0
        var uploadSpoolBytes = 0
        var latencyBuckets: [Int]
        var latencySum = 0.0
        var latencyCount = 0
        var cluster = ClusterCounters()
    }

    /// The cluster's part of `/metrics` (rendered only when the host is in a cluster).
    struct ClusterCounters {
        var configured = false
        var connected = false
        var peers = 0
        var members = 0
        var sent = 0
        var received = 0
        var claims: [ClusterClaim: Int] = [:]
        /// Subscriptions regained after a loss.
        var resubscribed = 0
        /// Presentations settled from their claims after a re-subscription.
        var recovered = 0
        /// Backplane messages dropped on receipt, by reason (`ClusterRejection`).
        var rejected: [String: Int] = [:]
    }

    /// Upper bounds of the present-to-answer latency buckets, in seconds.
    static let bucketBounds: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300]

    private let counters = Locked(Counters(latencyBuckets: Array(repeating: 0, count: bucketBounds.count)))

    func update(_ body: (inout Counters) -> Void) { counters.withLock { body(&$0) } }

    /// Counts a resolved modal and its present-to-answer latency (one lock for both).
    func resolved(after seconds: Double) {
        counters.withLock { counters in
            counters.resolved += 1
            for (index, bound) in Self.bucketBounds.enumerated() where seconds <= bound {
                counters.latencyBuckets[index] += 1
            }
            counters.latencySum += seconds
            counters.latencyCount += 1
        }
    }

    var snapshot: Counters { counters.withLock { $0 } }

    /// Prometheus text exposition format, version 0.0.4.
    func render(transport: TransportStats) -> String {
        let counters = snapshot
        var lines: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            for (labels, value) in samples { lines.append("\(name)\(labels) \(value)") }
        }
        metric(
            "remote_modal_connections", "gauge", "WebSocket connections open now.",
            [("", "\(transport.openConnections)")])
        metric(
            "remote_modal_connections_accepted_total", "counter", "WebSocket connections accepted.",
            [("", "\(transport.acceptedConnections)")])
        metric(
            "remote_modal_messages_total", "counter", "WebSocket messages, by direction.",
            [
                ("{direction=\"received\"}", "\(transport.messagesReceived)"),
                ("{direction=\"sent\"}", "\(transport.messagesSent)"),
            ])
        metric(
            "remote_modal_writes_total", "counter",
            "Socket writes: the messages queued for a client in one loop turn go out in one write.",
            [("", "\(transport.writes)")])
        metric(
            "remote_modal_outgoing_queued_bytes", "gauge",
            "Bytes queued for clients and not yet written to their sockets (at most --max-outgoing-memory).",
            [("", "\(transport.outgoingQueuedBytes)")])
        metric(
            "remote_modal_slow_consumers_total", "counter",
            "Connections closed because their queue, or the host's outgoing budget, filled up.",
            [("", "\(transport.slowConsumers)")])
        metric(
            "remote_modal_keepalive_pings_total", "counter",
            "Pings sent to connections that were silent for the ping interval.",
            [("", "\(transport.pingsSent)")])
        metric(
            "remote_modal_silent_connections_dropped_total", "counter",
            "Connections dropped by the keepalive: nothing heard for the ping interval times one plus the pongs that may be missed.",
            [("", "\(transport.silentConnectionsDropped)")])
        metric(
            "remote_modal_upgrades_refused_total", "counter", "Upgrades refused (origin, subprotocol, limit).",
            [("", "\(transport.refusedUpgrades)")])
        metric(
            "remote_modal_refusals_total", "counter",
            "Upgrades and HTTP requests refused by the transport, by reason.",
            transport.refusals.sorted { $0.key < $1.key }.map { ("{reason=\"\($0.key)\"}", "\($0.value)") })
        metric(
            "remote_modal_sessions", "gauge", "Sessions alive now: connected, or disconnected and kept for a resume.",
            [("", "\(counters.sessions)")])
        metric(
            "remote_modal_sessions_total", "counter", "Sessions by how they began or ended.",
            [
                ("{event=\"created\"}", "\(counters.sessionsCreated)"),
                ("{event=\"resumed\"}", "\(counters.sessionsResumed)"),
                ("{event=\"expired\"}", "\(counters.sessionsExpired)"),
            ])
        metric(
            "remote_modal_sessions_evicted_total", "counter", "Retained sessions ended early to admit others.",
            [("", "\(counters.sessionsEvicted)")])
        metric(
            "remote_modal_hellos_deferred_total", "counter",
            "Hellos handled in a later loop turn: the turn's time for hellos (--hello-time-per-turn) was spent.",
            [("", "\(counters.hellosDeferred)")])
        metric(
            "remote_modal_hellos_waiting", "gauge", "Hellos waiting for a loop turn now.",
            [("", "\(counters.hellosWaiting)")])
        metric(
            "remote_modal_sessions_refused_total", "counter", "New sessions refused (close 1013), by reason.",
            ["too many sessions from this address", "host at session capacity"].map {
                ("{reason=\"\($0)\"}", "\(counters.admissionsRefused[$0] ?? 0)")
            })
        metric("remote_modal_modals_presented_total", "counter", "Modals presented.", [("", "\(counters.presented)")])
        metric(
            "remote_modal_modals_resolved_total", "counter",
            "Modals answered by a client: a result or a failure (cancels included).", [("", "\(counters.resolved)")])
        metric(
            "remote_modal_modals_dismissed_total", "counter", "Modals dismissed, by reason.",
            DismissReason.allCases.map { ("{reason=\"\($0.rawValue)\"}", "\(counters.dismissed[$0.metricsIndex])") })
        metric(
            "remote_modal_errors_total", "counter", "Protocol errors sent, by code.",
            ErrorCode.all.map { ("{code=\"\($0.rawValue)\"}", "\(counters.errors[$0] ?? 0)") })
        metric(
            "remote_modal_upload_bytes_total", "counter", "Upload bytes accepted (resent bytes count again).",
            [("", "\(counters.uploadBytes)")])
        metric(
            "remote_modal_upload_chunks_refused_total", "counter",
            "Upload chunks refused (invalid or past the window).",
            [("", "\(counters.uploadChunksRefused)")])
        metric(
            "remote_modal_uploads_dropped_total", "counter",
            "Uploaded files dropped: no chunk for --upload-stall, slower than --upload-min-rate, or complete"
                + " with no result for --upload-stall after the last chunk.",
            [("", "\(counters.uploadsDropped)")])
        metric(
            "remote_modal_upload_held_bytes", "gauge", "Bytes of uploads in progress held, by where.",
            [
                ("{where=\"memory\"}", "\(counters.uploadMemoryBytes)"),
                ("{where=\"spool\"}", "\(counters.uploadSpoolBytes)"),
            ])
        var histogram: [(String, String)] = zip(Self.bucketBounds, counters.latencyBuckets).map { bound, count in
            ("_bucket{le=\"\(bound)\"}", "\(count)")
        }
        histogram.append(("_bucket{le=\"+Inf\"}", "\(counters.latencyCount)"))
        histogram.append(("_sum", "\(counters.latencySum)"))
        histogram.append(("_count", "\(counters.latencyCount)"))
        lines.append("# HELP remote_modal_answer_seconds Time from present to accepted answer.")
        lines.append("# TYPE remote_modal_answer_seconds histogram")
        for (suffix, value) in histogram { lines.append("remote_modal_answer_seconds\(suffix) \(value)") }
        if counters.cluster.configured {
            let cluster = counters.cluster
            metric(
                "remote_modal_cluster_connected", "gauge", "1 while the cluster backplane (Redis) is subscribed.",
                [("", cluster.connected ? "1" : "0")])
            metric(
                "remote_modal_cluster_hosts_seen", "gauge", "Other hosts heard from within the membership expiry.",
                [("", "\(cluster.peers)")])
            metric(
                "remote_modal_cluster_members_seen", "gauge",
                "Connected sessions on other hosts, from their heartbeats.",
                [("", "\(cluster.members)")])
            metric(
                "remote_modal_cluster_messages_total", "counter", "Backplane messages relayed, by direction.",
                [("{direction=\"sent\"}", "\(cluster.sent)"), ("{direction=\"received\"}", "\(cluster.received)")])
            metric(
                "remote_modal_cluster_claims_total", "counter", "First-answer claims, by outcome.",
                [ClusterClaim.won, .lost, .unavailable].map { ("{outcome=\"\($0)\"}", "\(cluster.claims[$0] ?? 0)") })
            metric(
                "remote_modal_cluster_resubscribed_total", "counter",
                "Backplane subscriptions regained after a loss (membership and pending answers then recovered).",
                [("", "\(cluster.resubscribed)")])
            metric(
                "remote_modal_cluster_recovered_total", "counter",
                "Cluster presentations settled from their claims after a re-subscription.",
                [("", "\(cluster.recovered)")])
            metric(
                "remote_modal_cluster_rejected_total", "counter",
                "Backplane messages dropped on receipt (unsigned, bad signature, stale, malformed, refused).",
                ClusterRejection.allCases.map {
                    ("{reason=\"\($0.rawValue)\"}", "\(cluster.rejected[$0.rawValue] ?? 0)")
                })
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension DismissReason {
    /// Its place in `HostMetrics.Counters.dismissed`.
    var metricsIndex: Int {
        switch self {
        case .resolved: 0
        case .disposed: 1
        case .timeout: 2
        case .expired: 3
        case .superseded: 4
        case .shutdown: 5
        // The host sends only version 1's reasons.
        default: 0
        }
    }
}
