import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Sends raw bytes to a local port and reads the reply until the server closes or the
/// timeout passes: lets tests send requests no well-behaved client would.
func rawRequest(port: Int, _ request: String, timeout: Double = 3) -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return "" }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var reply = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        reply.append(contentsOf: buffer[0..<count])
        // An HTTP reply with a body length we have fully read: stop waiting.
        if let text = String(data: reply, encoding: .utf8), let headerEnd = text.range(of: "\r\n\r\n") {
            let head = text[..<headerEnd.lowerBound].lowercased()
            if head.hasPrefix("http/1.1 101") { break }
            if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                reply.count - text.utf8.distance(from: text.startIndex, to: headerEnd.upperBound) >= length
            {
                break
            }
        }
    }
    return String(decoding: reply, as: UTF8.self)
}

/// The status code of a raw HTTP reply, or 0.
func statusCode(_ reply: String) -> Int {
    let parts = reply.split(separator: " ", maxSplits: 2)
    return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
}

/// A WebSocket upgrade request with optional origin and subprotocols.
func upgradeRequest(port: Int, path: String = "/ws", origin: String? = nil, protocols: String? = nil) -> String {
    var lines = [
        "GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Upgrade: websocket", "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
    ]
    if let origin { lines.append("Origin: \(origin)") }
    if let protocols { lines.append("Sec-WebSocket-Protocol: \(protocols)") }
    return lines.joined(separator: "\r\n") + "\r\n\r\n"
}
