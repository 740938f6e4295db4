import Foundation

/// An HTTP request that reached the server (not a WebSocket upgrade).
public struct HTTPRequest: Sendable {
    /// The method, for example `GET`.
    public let method: String
    /// The path without the query, percent-encoded as received.
    public let path: String
    /// The decoded query parameters (the last value wins for a repeated name).
    public let queryItems: [String: String]
    /// Selected request headers, lower-cased names (`host`, `origin`, `cookie`, ...).
    public let headers: [String: String]
    /// The client's address (behind a trusted proxy, the one it forwarded for); empty when
    /// unknown. Per-address budgets count by it.
    public let clientAddress: String

    /// Creates a request.
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The path.
    ///   - queryItems: The decoded query parameters.
    ///   - headers: Header values by lower-cased name.
    ///   - clientAddress: The client's address.
    public init(
        method: String, path: String, queryItems: [String: String] = [:], headers: [String: String] = [:],
        clientAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.clientAddress = clientAddress
    }
}

/// An HTTP response produced by a route.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The `Content-Type`.
    public var contentType: String
    /// The body.
    public var body: Data
    /// Extra headers (name, value).
    public var headers: [(String, String)]

    /// Creates a response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - contentType: The content type.
    ///   - body: The body.
    ///   - headers: Extra headers.
    public init(status: Int, contentType: String, body: Data, headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A plain-text response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - text: The body.
    /// - Returns: The response.
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Data(text.utf8))
    }

    /// An HTML response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - html: The body.
    /// - Returns: The response.
    public static func html(_ status: Int, _ html: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Data(html.utf8))
    }
}

/// A dynamic route: returns a response for the requests it handles, `nil` for others.
/// Called on the server's service thread; it must not block.
public typealias HTTPRoute = @Sendable (HTTPRequest) -> HTTPResponse?
