import RemoteModalTransport

/// Errors of the WebSocket transport.
public enum WebSocketError: Error, Equatable, Sendable {
    /// A libwebsockets call failed; names the function and its result.
    case call(function: String, result: Int)
    /// The URL is not a `ws://` or `wss://` URL this client can reach.
    case invalidURL(String)
    /// The server or client was already started or stopped.
    case invalidState(String)
    /// The connection is not open (closed, never opened, or unknown).
    case notConnected
    /// The server could not listen: the address and port, and why, in words.
    case cannotListen(address: String, port: Int, reason: String)
    /// The event loop's libwebsockets plugin is not installed: the backend, the plugin file
    /// and the Debian package that ships it.
    case eventLibraryMissing(backend: String, plugin: String, package: String)
    /// `webRoot` names no folder (a relative path counts from the current folder).
    case webRootMissing(path: String)
}

extension WebSocketError: CustomStringConvertible {
    /// A message for the person who started the server.
    public var description: String {
        switch self {
        case .call(let function, let result): "\(function) failed (\(result))"
        case .invalidURL(let url): "invalid URL '\(url)'"
        case .invalidState(let state): state
        case .notConnected: "not connected"
        case .cannotListen(let address, let port, let reason): "cannot listen on \(address):\(port): \(reason)"
        case .eventLibraryMissing(let backend, let plugin, let package):
            "the \(backend) event loop needs libwebsockets' plugin \(plugin), which is not installed "
                + "(apt-get install \(package)); or run on libwebsockets' poll() loop (--event-loop poll)"
        case .webRootMissing(let path):
            "the web root '\(path)' is not a folder: set webRoot to the folder that holds the page"
                + " (this repository's web/), or to nil to serve no page"
        }
    }
}

/// Turns a libwebsockets status result into a Swift error naming the function.
/// - Parameters:
///   - result: The C function's result (negative or nonzero means failure, per `failsOn`).
///   - function: The C function's name.
/// - Throws: `WebSocketError.call` when the result is a failure.
@discardableResult
func check(_ result: Int32, _ function: String) throws -> Int32 {
    guard result >= 0 else { throw WebSocketError.call(function: function, result: Int(result)) }
    return result
}

/// Turns a libwebsockets pointer result into a Swift error naming the function.
/// - Parameters:
///   - pointer: The C function's result.
///   - function: The C function's name.
/// - Returns: The non-nil pointer.
/// - Throws: `WebSocketError.call` when it is `nil`.
func check<Pointer>(_ pointer: Pointer?, _ function: String) throws -> Pointer {
    guard let pointer else { throw WebSocketError.call(function: function, result: 0) }
    return pointer
}
