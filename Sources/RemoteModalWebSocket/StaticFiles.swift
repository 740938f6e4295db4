import Foundation
import RemoteModalTransport

/// Maps request paths to files under a web root, refusing anything that would leave it.
struct StaticFiles: Sendable {
    /// The outcome of resolving a path.
    enum Resolution: Equatable {
        /// Serve this file with this content type.
        case file(path: String, contentType: String)
        /// No such file: 404.
        case notFound
        /// The path is malformed or tries to leave the root: 400 (never served).
        case forbidden
    }

    let root: URL

    init(root: String) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath()
    }

    /// Resolves a request path (percent-encoded, as received).
    func resolve(_ requestPath: String) -> Resolution {
        guard let decoded = requestPath.removingPercentEncoding, !decoded.contains("\0"),
            !decoded.contains("\\")
        else { return .forbidden }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: true)
        if segments.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix("~") }) { return .forbidden }
        var candidate = root
        for segment in segments { candidate.appendPathComponent(String(segment)) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
            candidate.appendPathComponent("index.html")
        }
        // Symlinks must not lead outside the root either.
        let resolved = candidate.resolvingSymlinksInPath()
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        guard resolved.path.hasPrefix(rootPath) else { return .forbidden }
        guard FileManager.default.isReadableFile(atPath: resolved.path),
            FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isDirectory), !isDirectory.boolValue
        else { return .notFound }
        return .file(path: resolved.path, contentType: Self.contentType(for: resolved.pathExtension))
    }

    /// Opens a resolved file for serving without ever blocking: `O_NONBLOCK` (a FIFO or a
    /// device would otherwise block the service thread in `open`), then `fstat` on the
    /// descriptor, so only a regular file passes and nothing can be swapped in between.
    /// - Parameter path: A path from `resolve`.
    /// - Returns: The open descriptor, or `nil` for anything but a readable regular file.
    ///   The caller closes it.
    static func openRegularFile(_ path: String) -> Int32? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// The content type for a file extension.
    static func contentType(for pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        case "woff2": "font/woff2"
        case "wasm": "application/wasm"
        default: "application/octet-stream"
        }
    }
}

extension ServiceLoop {
    /// A configured web root must be a folder, or every request for the page would be
    /// answered with an error while the server looked healthy; one without `index.html` is
    /// worth a warning (`/` then answers 404).
    /// - Throws: `WebSocketError.webRootMissing` naming the absolute path.
    func checkWebRoot() throws {
        guard case .server(let configuration) = role, let root = configuration.webRoot else { return }
        let absolute = URL(fileURLWithPath: root).standardizedFileURL.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder), isFolder.boolValue else {
            throw WebSocketError.webRootMissing(path: absolute)
        }
        let index = URL(fileURLWithPath: absolute).appendingPathComponent("index.html").path
        if !FileManager.default.fileExists(atPath: index) {
            logger.warning("the web root '\(absolute)' has no index.html: / will answer 404")
        }
    }
}
