import CRemoteModalLibWebSockets
import Foundation
import Glibc
import RemoteModalTransport

/// Accepted sockets before they become WebSocket connections (server role, service thread).
///
/// A socket counts against its peer's `maxConnectionsPerAddress` from accept until it is
/// upgraded (then it counts as a WebSocket connection) or destroyed, whatever its request's
/// method and however far its headers got. A socket from an address that already holds more
/// than the limit (its half-finished requests and its WebSocket connections together) is
/// closed on arrival; the one socket past the limit is let in so that an upgrade over the
/// limit is refused in words (503). Sockets from a trusted proxy are not counted here: the
/// proxy carries many clients, told apart only by their `X-Forwarded-For` at the upgrade.
///
/// Many addresses, each inside its limit, can still fill the table together (issue 33,
/// round four: 40 addresses of 65 half-finished requests kept a bystander out of an
/// 864-connection table). When a socket arrives in the table's last stretch
/// (`pendingEvictionMargin` below the descriptors the host accepts), the two oldest
/// half-finished requests of the address holding the most of them are cut, so new arrivals keep finding
/// room; an address with a single half-finished request (a person's browser) is never cut,
/// and WebSocket connections are never cut for it.
extension ServiceLoop {
    /// How far below the accept ceiling the eviction of crowded half-finished requests starts.
    var pendingEvictionMargin: Int32 { max(16, serviceThreadAcceptCeiling / 8) }

    /// Cuts the oldest half-finished request of the address holding the most of them, when
    /// it holds at least two; called on the service thread as a socket arrives near the
    /// ceiling. O(addresses holding half-finished requests), only then.
    func evictCrowdedPendingSocket() {
        guard let (address, order) = serviceThreadPendingByAddress.max(by: { $0.value.count < $1.value.count }),
            order.count >= 2, let victim = order.first
        else { return }
        let count = order.count
        if let peer = releasePendingSocket(victim) { chargeChurn(peer) }
        // NB: lws closes a socket politely: `shutdown(SHUT_WR)`, then it waits up to its
        // timeout for the peer's end of stream, which a crowd never sends, so its descriptor
        // stayed taken. Shut both ways here first (with a zero linger: a reset, no TIME_WAIT):
        // lws then reads the end of stream at its next turn and frees the descriptor.
        let descriptor = Int32(lws_get_socket_fd(victim))
        if descriptor >= 0 {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
        }
        lws_set_timeout(victim, PENDING_TIMEOUT_USER_OK, rm_to_kill_async())
        countRefusal("crowded_pending")
        logRefusal(
            "half-finished request from \(address) cut: the connection table is nearly full and that address held "
                + "\(count) of them")
    }

    /// Whether a newly accepted socket may stay (`FILTER_NETWORK_CONNECTION`).
    func admitsSocket(_ descriptor: Int32) -> Bool {
        guard case .server(let configuration) = role, let peer = Self.peerAddress(ofSocket: descriptor),
            !isTrustedProxy(peer)
        else { return true }
        let held = (serviceThreadPendingByAddress[peer]?.count ?? 0) + serviceThreadAddressCounts[peer, default: 0]
        guard held <= configuration.maxConnectionsPerAddress else {
            countRefusal("address_sockets")
            logRefusal("connection from \(peer) closed on arrival: \(held) sockets of that address are open")
            return false
        }
        let now = Self.churnClock()
        guard serviceThreadChurn.admits(peer, now: now) else {
            countRefusal("address_churn")
            let wait = serviceThreadChurn.secondsUntilAdmitted(peer, now: now)
            logRefusal(
                "connection from \(peer) closed on arrival: more than \(configuration.socketChurnBurstPerAddress) of "
                    + "its sockets ended without a WebSocket upgrade, then more than "
                    + "\(configuration.socketChurnPerAddress) a second (admitted again in "
                    + "\(Int((wait * 1000).rounded(.up))) ms)")
            return false
        }
        return true
    }

    private func isTrustedProxy(_ peer: String) -> Bool {
        !trustedProxies.isEmpty && trustedProxies.contains { (AdmissionPolicy.normalizedIP($0) ?? $0) == peer }
    }

    /// Counts an accepted socket against its peer until `releasePendingSocket`.
    func recordPendingSocket(_ wsi: OpaquePointer) {
        guard case .server = role, let peer = Self.peerAddress(ofSocket: Int32(lws_get_socket_fd(wsi))),
            !isTrustedProxy(peer)
        else { return }
        serviceThreadPendingSockets[wsi] = peer
        serviceThreadPendingByAddress[peer, default: []].append(wsi)
    }

    /// Stops counting a socket as pending (it was upgraded, or it is gone).
    /// - Returns: Its peer, when it was counted.
    @discardableResult
    func releasePendingSocket(_ wsi: OpaquePointer) -> String? {
        guard let peer = serviceThreadPendingSockets.removeValue(forKey: wsi) else { return nil }
        if var order = serviceThreadPendingByAddress[peer], let index = order.firstIndex(of: wsi) {
            order.remove(at: index)
            serviceThreadPendingByAddress[peer] = order.isEmpty ? nil : order
        }
        return peer
    }

    /// One of `peer`'s sockets ended without an upgrade (`SocketChurnBudget`).
    func chargeChurn(_ peer: String) {
        serviceThreadChurn.charge(peer, now: Self.churnClock())
    }

    /// Seconds on the monotonic clock, for the churn budget.
    static func churnClock() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// A `CONNECT` request: lws 4.1 turns its socket into a raw one with no timeout at all
    /// (`lws_http_to_fallback`). The host proxies nothing: it answers 405 and closes at once.
    func refuseConnectMethod(_ wsi: OpaquePointer) -> Int32 {
        countRefusal("method")
        logRefusal("CONNECT from \(peerAddress(wsi)) refused with 405")
        let text = "method not allowed\n"
        let head =
            "HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(text.utf8.count)\r\nconnection: close\r\n\r\n"
        let bytes = Array((head + text).utf8)
        let pre = rm_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + bytes.count)
        buffer.replaceSubrange(pre..<buffer.count, with: bytes)
        _ = buffer.withUnsafeMutableBufferPointer { buffer in
            lws_write(wsi, buffer.baseAddress! + pre, bytes.count, rm_write_raw())
        }
        // Nonzero: lws closes the socket.
        return -1
    }

    /// The canonical address of a socket's peer, or `nil` when it has none.
    static func peerAddress(ofSocket descriptor: Int32) -> String? {
        guard descriptor >= 0 else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) == 0 }
        }
        guard named else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: Bool = withUnsafePointer(to: &storage) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var address = $0.pointee.sin_addr
                    return inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var address = $0.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil
                }
            default:
                return false
            }
        }
        guard written else { return nil }
        let address = decodeCString(text)
        return AdmissionPolicy.normalizedIP(address) ?? address
    }
}
