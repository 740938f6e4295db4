import CRemoteModalLibWebSockets
import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
import Synchronization

/// The upgrade checks (path, Host, limits, Origin, subprotocol) and HTTP refusals, on the
/// service thread; the rules themselves are pure functions in `AdmissionPolicy`.
extension ServiceLoop {
    // MARK: Upgrade checks

    func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        guard case .server(let configuration) = role else { return 0 }
        let path = header(wsi, WSI_TOKEN_GET_URI) ?? ""
        let peer = peerAddress(wsi)
        let client = clientAddress(wsi, peer: peer)
        var refusal: (status: Int, reason: String, text: String)?
        let (open, stopping) = shared.withLock { ($0.stats.openConnections, $0.stopping) }
        if path != configuration.path {
            refusal = (404, "path", "no WebSocket endpoint at this path")
        } else if let (status, text) = hostRefusal(header(wsi, WSI_TOKEN_HOST)) {
            refusal = (status, "host", text)
        } else if stopping {
            refusal = (503, "stopping", "host shutting down")
        } else if open >= effectiveMaxConnections {
            refusal = (503, "connection_limit", "connection limit reached")
        } else if serviceThreadAddressCounts[client, default: 0] >= configuration.maxConnectionsPerAddress {
            refusal = (503, "address_limit", "too many connections from this address")
        } else if let origin = header(wsi, WSI_TOKEN_ORIGIN),
            !originAllowed(origin, host: header(wsi, WSI_TOKEN_HOST), configuration: configuration)
        {
            refusal = (403, "origin", "origin not allowed")
        } else if let offered = header(wsi, WSI_TOKEN_PROTOCOL), selectedProtocol(offered) == nil,
            !configuration.acceptsAnySubprotocol
        {
            refusal = (400, "subprotocol", "subprotocol \(configuration.subprotocol) required")
        }
        guard let refusal else { return 0 }
        shared.withLock {
            $0.stats.refusedUpgrades += 1
            $0.stats.refusals[refusal.reason, default: 0] += 1
        }
        logRefusal("upgrade from \(client) refused with \(refusal.status): \(refusal.text)")
        return refuse(wsi, status: refusal.status, text: refusal.text + "\n") ? 1 : -1
    }

    func countRefusal(_ reason: String) {
        shared.withLock { $0.stats.refusals[reason, default: 0] += 1 }
    }

    func logRefusal(_ line: String) {
        let now = Date()
        guard now.timeIntervalSince(serviceThreadRefusalLog.last) >= 1 else {
            serviceThreadRefusalLog.skipped += 1
            return
        }
        let skipped = serviceThreadRefusalLog.skipped
        serviceThreadRefusalLog = (now, 0)
        logger.info(skipped > 0 ? "\(line) (and \(skipped) more refusals in the last second)" : line)
    }

    /// Why a request's `Host` is refused (status and text), or `nil` when it names this server.
    func hostRefusal(_ host: String?) -> (Int, String)? {
        guard let allowedHosts else { return nil }
        guard let host else { return (400, "Host header required") }
        return allowedHosts.allows(host) ? nil : (403, "host not allowed (see --allowed-host)")
    }

    /// The client address of a request: the peer, or `X-Forwarded-For` from a trusted proxy.
    func clientAddress(_ wsi: OpaquePointer, peer: String) -> String {
        guard !trustedProxies.isEmpty else { return AdmissionPolicy.normalizedIP(peer) ?? peer }
        return AdmissionPolicy.clientAddress(
            peer: peer, forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR), trustedProxies: trustedProxies)
    }

    /// Writes a complete HTTP/1.1 refusal. NB: at this stage lws has not recorded the
    /// request's HTTP version and its header helpers would answer "HTTP/1.0", which strict
    /// WebSocket clients reject; so the response is written whole, by hand.
    func refuse(_ wsi: OpaquePointer, status: Int, text: String) -> Bool {
        let reasons = [
            400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 503: "Service Unavailable",
        ]
        let head =
            "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(text.utf8.count)\r\nconnection: close\r\n\r\n"
        let bytes = Array((head + text).utf8)
        let pre = rm_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + bytes.count)
        buffer.replaceSubrange(pre..<buffer.count, with: bytes)
        return buffer.withUnsafeMutableBufferPointer { buffer in
            lws_write(wsi, buffer.baseAddress! + pre, bytes.count, LWS_WRITE_HTTP_FINAL) >= bytes.count
        }
    }

    func selectedProtocol(_ offered: String) -> String? {
        guard case .server(let configuration) = role else { return nil }
        return AdmissionPolicy.selectedSubprotocol(offered: offered, supported: configuration.subprotocol)
    }

    func originAllowed(_ origin: String, host: String?, configuration: WebSocketServerConfiguration) -> Bool {
        AdmissionPolicy.originAllowed(
            origin, host: host, secure: configuration.tls != nil, allowedOrigins: configuration.allowedOrigins)
    }
}
