import CRemoteModalLibWebSockets
import Foundation
import RemoteModalTransport

/// The server's keepalive, on the host's own schedule rather than lws's timers
/// (`KeepaliveSchedule` says why).
extension ServiceLoop {
    /// Whole seconds since the context was created (the monotonic clock: about 20 ns a read,
    /// once per frame received).
    func keepaliveClock() -> UInt32 {
        UInt32(truncatingIfNeeded: (DispatchTime.now().uptimeNanoseconds &- serviceThreadClockStart) / 1_000_000_000)
    }

    /// Advances the keepalive to this second, once a turn (service thread): pings the
    /// connections silent for `pingIntervalSeconds`, drops those silent for
    /// `pingIntervalSeconds * (1 + missedPongsBeforeClose)`. The loop turns at least once a
    /// second (the shim's heartbeat timer).
    /// The most connections the keepalive looks at in one turn (each a few microseconds: a
    /// TCP_INFO read, a ping's WRITEABLE): 15,000 idle ones come due at about 700 a second.
    static var keepaliveConnectionsPerTurn: Int { 16 }

    func serviceKeepalive() {
        guard var schedule = serviceThreadKeepalive else { return }
        let now = keepaliveClock()
        guard now != schedule.tick || schedule.hasDueConnections else { return }
        let closeAfter = schedule.closeAfter
        // Taken out while it runs: the closures below read the loop's other state.
        serviceThreadKeepalive = nil
        defer { serviceThreadKeepalive = schedule }
        defer {
            // More due than one turn's share: the next turn comes at once, after what else
            // is ready (lws_cancel_service from the service thread: the event pipe).
            if schedule.hasDueConnections, let context = contextPointer.withLock({ $0?.pointer }) {
                lws_cancel_service(context)
            }
        }
        schedule.advance(
            to: now, limit: Self.keepaliveConnectionsPerTurn,
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
