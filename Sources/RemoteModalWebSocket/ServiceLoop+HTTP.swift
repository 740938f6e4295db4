import CRemoteModalLibWebSockets
import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
import Synchronization

/// Plain HTTP on the WebSocket port: health, metrics, routes, static files.
extension ServiceLoop {
    // MARK: HTTP

    func serveHTTP(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?) -> Int32 {
        let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
        let method =
            header(wsi, WSI_TOKEN_GET_URI) != nil ? "GET" : (header(wsi, WSI_TOKEN_HEAD_URI) != nil ? "HEAD" : "OTHER")
        var headers: [String: String] = [:]
        for (name, token) in [
            ("host", WSI_TOKEN_HOST), ("origin", WSI_TOKEN_ORIGIN), ("cookie", WSI_TOKEN_HTTP_COOKIE),
            ("user-agent", WSI_TOKEN_HTTP_USER_AGENT),
        ] {
            if let value = header(wsi, token) { headers[name] = value }
        }
        let request = HTTPRequest(
            method: method, path: path, queryItems: queryItems(wsi), headers: headers,
            clientAddress: clientAddress(wsi, peer: peerAddress(wsi)))
        if method == "OTHER" {
            // Answered and closed at once: the request's body (if any) is never read, so the
            // socket holds nothing of the host's past this answer.
            countRefusal("method")
            var response = HTTPResponse.text(405, "method not allowed\n")
            response.headers = [("allow", "GET, HEAD"), ("connection", "close")]
            _ = respond(wsi, response, completeTransaction: false)
            return -1
        }
        if path == "/healthz" {
            let stopping = shared.withLock { $0.stopping }
            let response: HTTPResponse = stopping ? .text(503, "stopping\n") : .text(200, "ok\n")
            return respond(wsi, response, completeTransaction: true) ? 0 : -1
        }
        // Every other request must name this server in Host (DNS rebinding: a page on
        // another site reaching the host through a name that resolves to it).
        if let (status, text) = hostRefusal(headers["host"]) {
            countRefusal("host")
            logRefusal("request from \(clientAddress(wsi, peer: peerAddress(wsi))) refused with \(status): \(text)")
            return respond(wsi, .text(status, text + "\n"), completeTransaction: true) ? 0 : -1
        }
        if path == "/metrics", case .server(let configuration) = role, let token = configuration.metricsToken,
            !AdmissionPolicy.bearerMatches(header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), token: token)
        {
            countRefusal("metrics_auth")
            var response = HTTPResponse.text(401, "bearer token required\n")
            response.headers = [("www-authenticate", "Bearer realm=\"metrics\"")]
            return respond(wsi, response, completeTransaction: true) ? 0 : -1
        }
        if let response = handlers.route(request) {
            return respond(wsi, response, completeTransaction: true) ? 0 : -1
        }
        guard let staticFiles else {
            return respond(wsi, .text(404, "not found\n"), completeTransaction: true) ? 0 : -1
        }
        switch staticFiles.resolve(path) {
        case .forbidden:
            return respond(wsi, .text(400, "bad path\n"), completeTransaction: true) ? 0 : -1
        case .notFound:
            return respond(wsi, .text(404, "not found\n"), completeTransaction: true) ? 0 : -1
        case .file(let file, let contentType):
            guard let descriptor = StaticFiles.openRegularFile(file) else {
                return respond(wsi, .text(404, "not found\n"), completeTransaction: true) ? 0 : -1
            }
            // lws opens the file itself (blocking): hand it the descriptor we checked, through
            // /proc/self/fd, so it opens that very regular file and nothing else.
            defer { _ = Glibc.close(descriptor) }
            let extra = "X-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\n"
            let result = lws_serve_http_file(
                wsi, "/proc/self/fd/\(descriptor)", contentType, extra, Int32(extra.utf8.count))
            if result < 0 || (result > 0 && lws_http_transaction_completed(wsi) != 0) { return -1 }
            return 0
        }
    }

    /// Writes a whole small response at once (HTTP/1.1: lws buffers what the socket
    /// does not take).
    func respond(_ wsi: OpaquePointer, _ response: HTTPResponse, completeTransaction: Bool) -> Bool {
        let pre = rm_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + 4096 + response.body.count)
        let ok: Bool = buffer.withUnsafeMutableBufferPointer { buffer in
            let start = buffer.baseAddress! + pre
            let end = buffer.baseAddress! + pre + 4096 - 1
            var cursor: UnsafeMutablePointer<UInt8>? = start
            if lws_add_http_common_headers(
                wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &cursor, end)
                != 0
            {
                return false
            }
            for (name, value) in response.headers + [("x-content-type-options", "nosniff")] {
                let nameWithColon = name.lowercased() + ":"
                if lws_add_http_header_by_name(wsi, nameWithColon, value, Int32(value.utf8.count), &cursor, end) != 0 {
                    return false
                }
            }
            if lws_finalize_write_http_header(wsi, start, &cursor, end) != 0 { return false }
            guard !response.body.isEmpty else { return true }
            let bodyStart = cursor!
            response.body.copyBytes(to: bodyStart, count: response.body.count)
            let written = lws_write(wsi, bodyStart, response.body.count, LWS_WRITE_HTTP_FINAL)
            return written >= response.body.count
        }
        guard ok else { return false }
        if completeTransaction { return lws_http_transaction_completed(wsi) == 0 }
        return true
    }

    func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return decodeCString(buffer)
    }

    func queryItems(_ wsi: OpaquePointer) -> [String: String] {
        var items: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 {
            let fragment = decodeCString(buffer)
            let parts = fragment.split(separator: "=", maxSplits: 1).map(String.init)
            if let name = parts.first { items[name] = parts.count > 1 ? parts[1] : "" }
            index += 1
        }
        return items
    }

    func peerAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        return lws_get_peer_simple(wsi, &buffer, buffer.count) != nil ? decodeCString(buffer) : "?"
    }

    /// A peer's close code and reason, or `nil` when the reason is not UTF-8.
    func parseClosePayload(_ input: UnsafeMutableRawPointer?, _ length: Int) -> (CloseCode, String)? {
        guard let input, length >= 2 else { return (.noStatus, "") }
        let bytes = UnsafeRawBufferPointer(start: input, count: length)
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let reasonBytes = UnsafeRawBufferPointer(rebasing: bytes[2...])
        var validator = UTF8Validator()
        guard validator.feed(reasonBytes), validator.isAtBoundary else { return nil }
        return (CloseCode(rawValue: code), String(decoding: reasonBytes, as: UTF8.self))
    }
}
