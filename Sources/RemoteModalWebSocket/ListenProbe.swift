import Foundation

/// Finds out why a listening socket cannot be had, by trying to bind one the same way:
/// libwebsockets logs the errno and returns no context, which tells a person nothing.
enum ListenProbe {
    /// Why binding `host:port` fails, in words, or `nil` when it would succeed (the
    /// failure was something else).
    /// - Parameters:
    ///   - host: The address to bind (IPv4 literal or name).
    ///   - port: The port.
    /// - Returns: A reason such as "the port is already in use".
    static func refusal(host: String, port: Int) -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        let literal = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else {
            return "'\(host)' is not an IPv4 address this machine can bind (0.0.0.0, or an address it has)"
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result != 0 else { return nil }
        switch errno {
        case EADDRINUSE:
            return "the port is already in use (another server listens there: stop it, or choose another port)"
        case EACCES: return "not allowed to listen on this port (ports below 1024 need privileges)"
        case EADDRNOTAVAIL: return "this machine has no address \(host)"
        default: return String(cString: strerror(errno))
        }
    }
}
