import Foundation
import RemoteModalWebSocket
import Testing

@Suite("Upgrade checks: origin, subprotocol, path, connection limit", .serialized)
struct UpgradeTests {
    @Test func noOriginPasses() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let reply = rawRequest(port: server.port, upgradeRequest(port: server.port))
        #expect(statusCode(reply) == 101)
    }

    @Test func ownOriginPasses() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let reply = rawRequest(
            port: server.port, upgradeRequest(port: server.port, origin: "http://127.0.0.1:\(server.port)"))
        #expect(statusCode(reply) == 101)
    }

    @Test func foreignOriginGets403() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let reply = rawRequest(port: server.port, upgradeRequest(port: server.port, origin: "http://evil.example"))
        #expect(statusCode(reply) == 403)
        #expect(server.stats.refusedUpgrades == 1)
        #expect(server.stats.acceptedConnections == 0)
    }

    @Test func allowListedOriginPasses() throws {
        let server = try makeEchoServer { $0.allowedOrigins = ["https://app.example"] }
        defer { server.stop() }
        let allowed = rawRequest(port: server.port, upgradeRequest(port: server.port, origin: "https://app.example"))
        #expect(statusCode(allowed) == 101)
        let other = rawRequest(port: server.port, upgradeRequest(port: server.port, origin: "https://app.example:444"))
        #expect(statusCode(other) == 403)
    }

    @Test func subprotocolIsSelectedWhenOffered() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let reply = rawRequest(port: server.port, upgradeRequest(port: server.port, protocols: "chat, remote-modal.v1"))
        #expect(statusCode(reply) == 101)
        #expect(reply.lowercased().contains("sec-websocket-protocol: remote-modal.v1"))
    }

    @Test func onlyOtherSubprotocolsAreRefused() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let reply = rawRequest(port: server.port, upgradeRequest(port: server.port, protocols: "chat, superchat"))
        #expect(statusCode(reply) == 400)
    }

    @Test func wrongPathGets404() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let reply = rawRequest(port: server.port, upgradeRequest(port: server.port, path: "/elsewhere"))
        #expect(statusCode(reply) == 404)
    }

    @Test func connectionLimitRefusesWith503() throws {
        let server = try makeEchoServer { $0.maxConnections = 2 }
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let first = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        let second = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(first) && recorder.isOpen(second) })
        let reply = rawRequest(port: server.port, upgradeRequest(port: server.port))
        #expect(statusCode(reply) == 503)
        client.close(first)
        #expect(recorder.wait { recorder.closeCode(first) != nil })
        #expect(recorder.wait { server.stats.openConnections == 1 })
        #expect(statusCode(rawRequest(port: server.port, upgradeRequest(port: server.port))) == 101)
    }
}
