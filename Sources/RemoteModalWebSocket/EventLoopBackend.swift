import CRemoteModalLibWebSockets
import Foundation

/// How a service thread waits for its sockets.
///
/// libwebsockets' default loop calls `poll()` over every connection on each turn and looks
/// each ready socket up by walking its table: with 10,000 idle clients held open, a turn
/// that serves one busy client costs hundreds of microseconds for the idle ones. On libev
/// (epoll on Linux) a turn costs what its ready sockets cost (`docs/transport.md`).
public enum EventLoopBackend: String, Sendable, CaseIterable {
    /// libev through libwebsockets' plugin (`libwebsockets-evlib-ev`); epoll on Linux.
    case libev
    /// libwebsockets' built-in `poll()` loop: no plugin needed, cost grows with connections.
    case poll

    /// The plugin file libwebsockets loads for this backend, or `nil` when none is needed.
    var pluginPath: String? {
        switch self {
        case .libev: String(cString: rm_lws_install_libdir()) + "/libwebsockets-evlib_ev.so"
        case .poll: nil
        }
    }

    /// The Debian package that ships the plugin.
    var pluginPackage: String? {
        switch self {
        case .libev: "libwebsockets-evlib-ev"
        case .poll: nil
        }
    }

    /// Checks, before libwebsockets tries, that the backend's plugin is installed (lws
    /// would only log that it failed to load it and return no context).
    /// - Parameter fileExists: How a path is checked (tests pass their own).
    /// - Throws: `WebSocketError.eventLibraryMissing` naming the file, its package and the
    ///   fallback.
    func checkAvailable(fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) throws {
        guard let path = pluginPath, let package = pluginPackage else { return }
        guard fileExists(path) else {
            throw WebSocketError.eventLibraryMissing(backend: rawValue, plugin: path, package: package)
        }
    }
}
