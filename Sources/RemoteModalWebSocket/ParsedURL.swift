import Foundation
import RemoteModalTransport

/// A `ws://` or `wss://` URL split into what a client connection needs.
public struct ParsedURL: Sendable, Equatable {
    /// Whether the connection uses TLS.
    public let secure: Bool
    /// The host name or address.
    public let host: String
    /// The TCP port.
    public let port: Int
    /// The path and query.
    public let path: String

    /// The `Host` header value (``host`` or `host:port` when the port is not the default).
    public var hostHeader: String {
        let defaultPort = secure ? 443 : 80
        return port == defaultPort ? host : "\(host):\(port)"
    }

    /// Parses a URL.
    /// - Parameter string: `ws://host[:port]/path` or `wss://...`.
    /// - Throws: `WebSocketError.invalidURL` for any other form.
    public init(_ string: String) throws {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", let host = components.host, !host.isEmpty
        else { throw WebSocketError.invalidURL(string) }
        secure = scheme == "wss"
        self.host = host
        port = components.port ?? (secure ? 443 : 80)
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        path = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query
    }
}
