import CRemoteModalLibEV
import CRemoteModalLibWebSockets
import Foundation
import RemoteModalTransport

/// The server's keepalive, on the host's own schedule rather than lws's timers
/// (`KeepaliveSchedule` says why).
extension ServiceLoop {
    /// Whole seconds since the context was created (the monotonic clock: about 20 ns a read,
    /// once per frame received).
    func keepaliveClock(at nanoseconds: UInt64 = DispatchTime.now().uptimeNanoseconds) -> UInt32 {
        UInt32(truncatingIfNeeded: (nanoseconds &- serviceThreadClockStart) / 1_000_000_000)
    }

    /// The fewest connections the keepalive looks at in one batch (each a few microseconds:
    /// a TCP_INFO read, a ping's WRITEABLE).
    static var keepaliveConnectionsPerTurn: Int { 16 }
    /// The pause between two batches on libev, in nanoseconds.
    static var keepaliveBatchSpacing: UInt64 { 5_000_000 }
    /// How many batches a second's due connections are spread over on libev, at most (150 of
    /// 5 ms: three quarters of the second), when there are more than 16 a batch.
    static var keepaliveSpreadBatches: Int { 150 }

    /// Advances the keepalive to this second (service thread, after every turn): pings the
    /// connections silent for `pingIntervalSeconds`, drops those silent for
    /// `pingIntervalSeconds * (1 + missedPongsBeforeClose)`. The loop turns at least once a
    /// second (the shim's heartbeat timer).
    ///
    /// A second's due connections are looked at in batches spread over most of that second
    /// (on libev; the `poll()` fallback takes the next batch at the next turn): 15,000 idle
    /// ones come due at about 700 a second, and 700 pings at once, with the 700 pongs they
    /// bring back, put about 80 ms of loopback work in the way of a new session's welcome
    /// once a second (docs/benchmarks.md).
    func serviceKeepalive() {
        guard var schedule = serviceThreadKeepalive else { return }
        let nanoseconds = DispatchTime.now().uptimeNanoseconds
        let now = keepaliveClock(at: nanoseconds)
        guard now != schedule.tick || schedule.hasDueConnections else { return }
        var limit = Self.keepaliveConnectionsPerTurn
        if let loop = serviceThreadEventLoop {
            let since = nanoseconds &- serviceThreadKeepaliveBatchAt
            if schedule.hasDueConnections, since < Self.keepaliveBatchSpacing {
                // Too soon after the last batch: the wake-up brings the loop back for the next.
                rm_ev_wake_in(loop, keepaliveWake, Double(Self.keepaliveBatchSpacing - since) / 1e9)
                return
            }
            // Enough a batch to finish a second's due within about `keepaliveSpreadBatches`
            // batches; more when the loop has fallen a second behind.
            let perBatch = (schedule.dueInTick + Self.keepaliveSpreadBatches - 1) / Self.keepaliveSpreadBatches
            limit = max(limit, perBatch)
            if now &- schedule.tick > 1 { limit *= 4 }
        }
        serviceThreadKeepaliveBatchAt = nanoseconds
        let closeAfter = schedule.closeAfter
        // Taken out while it runs: the closures below read the loop's other state.
        serviceThreadKeepalive = nil
        defer { serviceThreadKeepalive = schedule }
        defer {
            if schedule.hasDueConnections {
                if let loop = serviceThreadEventLoop {
                    rm_ev_wake_in(loop, keepaliveWake, Double(Self.keepaliveBatchSpacing) / 1e9)
                } else if let context = contextPointer.withLock({ $0?.pointer }) {
                    // The next turn comes at once, after what else is ready (lws_cancel_service
                    // from the service thread: the event pipe).
                    lws_cancel_service(context)
                }
            }
        }
        schedule.advance(
            to: now, limit: limit,
            liveness: { id in
                guard serviceThreadClosing.isEmpty || !serviceThreadClosing.contains(id) else { return nil }
                guard let incoming = serviceThreadIncoming[id] else { return nil }
                if let before = incoming.bytesWhenPinged, let pinged = incoming.liveness.pinged,
                    let wsi = serviceThreadWSIs[id]
                {
                    // Bytes came after the ping was queued: its pong (lws reports no empty
                    // one), or a frame. Counted as heard when the ping went, the earliest it
                    // can have been: never later than it was.
                    let received = SocketProgress.bytesReceived(Int32(lws_get_socket_fd(wsi))) ?? before
                    if received > before {
                        incoming.bytesWhenPinged = nil
                        if pinged &- incoming.liveness.heard < UInt32.max / 2 { incoming.liveness.heard = pinged }
                    }
                }
                return incoming.liveness
            },
            act: { id, action in
                guard let wsi = serviceThreadWSIs[id], let incoming = serviceThreadIncoming[id] else { return }
                switch action {
                case .ping:
                    incoming.liveness.pinged = now
                    incoming.bytesWhenPinged = SocketProgress.bytesReceived(Int32(lws_get_socket_fd(wsi)))
                    incoming.pingPending = true
                    shared.withLock { $0.stats.pingsSent += 1 }
                    lws_callback_on_writable(wsi)
                case .close:
                    // Silent this long, it would not answer a close frame either: the socket
                    // is closed at once, as lws's own keepalive did.
                    let reason = "nothing heard for \(closeAfter) s"
                    logger.info("connection \(id): \(reason), dropping it")
                    serviceThreadLocalClose[id] = (.abnormal, reason)
                    serviceThreadClosing.insert(id)
                    shared.withLock { $0.stats.silentConnectionsDropped += 1 }
                    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, rm_to_kill_async())
                }
            })
    }
}
