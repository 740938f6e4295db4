import Foundation
import RemoteModalWebSocket
import Testing

/// A temporary web root with a few files, and a secret file just outside it.
struct WebRootFixture {
    let root: URL
    let outside: URL

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("webroot-\(UUID().uuidString)")
        root = base.appendingPathComponent("web")
        outside = base.appendingPathComponent("secret.txt")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("js"), withIntermediateDirectories: true)
        try "<!doctype html><title>t</title>".write(
            to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "export const x = 1;".write(to: root.appendingPathComponent("js/app.js"), atomically: true, encoding: .utf8)
        try "body{}".write(to: root.appendingPathComponent("style.css"), atomically: true, encoding: .utf8)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: root.appendingPathComponent("logo.png"))
        try "TOP SECRET".write(to: outside, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("escape.txt"), withDestinationURL: outside)
    }

    func remove() { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
}

func get(_ port: Int, _ path: String) -> String {
    rawRequest(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
}

func contentType(_ reply: String) -> String? {
    reply.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
        .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
}

@Suite("HTTP on the WebSocket port", .serialized)
struct HTTPTests {
    @Test func healthz() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let reply = get(server.port, "/healthz")
        #expect(statusCode(reply) == 200)
        #expect(reply.hasSuffix("ok\n"))
    }

    @Test(arguments: [
        ("/", "text/html; charset=utf-8"), ("/index.html", "text/html; charset=utf-8"),
        ("/js/app.js", "text/javascript; charset=utf-8"), ("/style.css", "text/css; charset=utf-8"),
        ("/logo.png", "image/png"),
    ])
    func staticFilesWithContentTypes(path: String, type: String) throws {
        let fixture = try WebRootFixture()
        defer { fixture.remove() }
        let server = try makeEchoServer { $0.webRoot = fixture.root.path }
        defer { server.stop() }
        let reply = get(server.port, path)
        #expect(statusCode(reply) == 200)
        #expect(contentType(reply) == type)
    }

    @Test func missingFileIs404() throws {
        let fixture = try WebRootFixture()
        defer { fixture.remove() }
        let server = try makeEchoServer { $0.webRoot = fixture.root.path }
        defer { server.stop() }
        #expect(statusCode(get(server.port, "/nope.html")) == 404)
    }

    @Test(
        "traversal never leaves the root",
        arguments: [
            "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/js/../../secret.txt",
            "/..%2fsecret.txt", "//etc/passwd", "/escape.txt", "/js/%2e%2e/%2e%2e/secret.txt",
            "/..\\secret.txt",
        ])
    func traversal(path: String) throws {
        let fixture = try WebRootFixture()
        defer { fixture.remove() }
        let server = try makeEchoServer { $0.webRoot = fixture.root.path }
        defer { server.stop() }
        let reply = get(server.port, path)
        #expect(!reply.contains("TOP SECRET"))
        #expect(!reply.contains("root:x:0"))
        #expect([400, 403, 404].contains(statusCode(reply)), "got \(statusCode(reply)) for \(path)")
    }

    @Test func encodedNulCannotSmuggleAPath() throws {
        let fixture = try WebRootFixture()
        defer { fixture.remove() }
        let server = try makeEchoServer { $0.webRoot = fixture.root.path }
        defer { server.stop() }
        // libwebsockets decodes %00 and the C string ends there, so the request is for "/".
        let reply = get(server.port, "/%00../secret.txt")
        #expect(!reply.contains("TOP SECRET"))
        #expect(statusCode(reply) == 200 ? reply.contains("<!doctype html>") : [400, 404].contains(statusCode(reply)))
    }

    @Test func absolutePathOutsideRootIsNotServed() throws {
        let fixture = try WebRootFixture()
        defer { fixture.remove() }
        let server = try makeEchoServer { $0.webRoot = fixture.root.path }
        defer { server.stop() }
        let reply = get(server.port, fixture.outside.path)
        #expect(!reply.contains("TOP SECRET"))
    }

    @Test func dynamicRouteAnswersBeforeStaticFiles() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let server = try WebSocketServer(
            configuration: configuration,
            route: { request in
                request.path == "/hello" ? .text(200, "hi \(request.queryItems["name"] ?? "?")") : nil
            },
            onMessage: { _, _ in })
        defer { server.stop() }
        let reply = get(server.port, "/hello?name=ann")
        #expect(statusCode(reply) == 200)
        #expect(reply.hasSuffix("hi ann"))
        #expect(statusCode(get(server.port, "/other")) == 404)
    }
}
