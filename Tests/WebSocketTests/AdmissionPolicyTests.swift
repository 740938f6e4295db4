import Foundation
import RemoteModalLocking
import RemoteModalLogging
import Testing

@testable import RemoteModalWebSocket

@Suite("Admission policy: client address, allowed hosts, bearer tokens, descriptor budget")
struct AdmissionPolicyTests {
    // MARK: X-Forwarded-For

    @Test func forwardedForIsIgnoredFromAnUntrustedPeer() {
        #expect(
            AdmissionPolicy.clientAddress(peer: "192.0.2.9", forwardedFor: "203.0.113.1", trustedProxies: [])
                == "192.0.2.9")
        #expect(
            AdmissionPolicy.clientAddress(
                peer: "192.0.2.9", forwardedFor: "203.0.113.1", trustedProxies: ["10.0.0.1"]) == "192.0.2.9")
    }

    @Test func rightMostUntrustedEntryFromATrustedProxy() {
        let trusted: Set = ["10.0.0.1", "10.0.0.2"]
        func client(_ header: String?) -> String {
            AdmissionPolicy.clientAddress(peer: "10.0.0.1", forwardedFor: header, trustedProxies: trusted)
        }
        #expect(client("203.0.113.1") == "203.0.113.1")
        // Entries left of the proxy's own may be written by the client: never used.
        #expect(client("1.1.1.1, 203.0.113.1") == "203.0.113.1")
        // A chain of trusted proxies is walked past.
        #expect(client("203.0.113.1, 10.0.0.2") == "203.0.113.1")
        #expect(client(" 2001:DB8::1 ,10.0.0.2") == "2001:db8::1")
        // Nothing usable: the peer.
        #expect(client(nil) == "10.0.0.1")
        #expect(client("") == "10.0.0.1")
        #expect(client("10.0.0.2") == "10.0.0.1")
        #expect(client("203.0.113.1, not-an-address") == "10.0.0.1")
        #expect(client("203.0.113.1, 203.0.113.2:443") == "10.0.0.1")
    }

    @Test func trustedProxiesAndPeersCompareCanonically() {
        #expect(
            AdmissionPolicy.clientAddress(
                peer: "::ffff:10.0.0.1", forwardedFor: "203.0.113.1", trustedProxies: ["::FFFF:10.0.0.1"])
                == "203.0.113.1")
        #expect(AdmissionPolicy.normalizedIP("[::1]") == "::1")
        #expect(AdmissionPolicy.normalizedIP("127.000.0.1") == nil)
        #expect(AdmissionPolicy.normalizedIP("example.com") == nil)
    }

    // MARK: Host

    @Test func hostNamesAreParsedWithoutPorts() {
        #expect(AdmissionPolicy.hostName(ofHostHeader: "Example.COM:8080") == "example.com")
        #expect(AdmissionPolicy.hostName(ofHostHeader: "example.com.") == "example.com")
        #expect(AdmissionPolicy.hostName(ofHostHeader: "[::1]:80") == "::1")
        #expect(AdmissionPolicy.hostName(ofHostHeader: "") == nil)
        #expect(AdmissionPolicy.hostName(ofHostHeader: "a:b:c") == nil)
        #expect(AdmissionPolicy.hostName(ofHostHeader: "evil.example:80x") == nil)
        #expect(AdmissionPolicy.hostName(ofHostHeader: "user@evil.example") == nil)
        #expect(AdmissionPolicy.hostName(ofHostHeader: "a b") == nil)
    }

    @Test func hostMustNameThisServer() {
        let rule = AdmissionPolicy.AllowedHosts(
            bindAddress: "127.0.0.1", publicHost: "modal.example.org", names: ["kiosk.local", ".corp.example"])
        for allowed in [
            "127.0.0.1:8080", "localhost", "LOCALHOST:1", "modal.example.org", "kiosk.local:80", "a.corp.example",
            "corp.example",
        ] {
            #expect(rule.allows(allowed), "\(allowed)")
        }
        for refused in [
            nil, "", "evil.example", "127.0.0.2:8080", "[::1]:8080", "modal.example.org.evil", "xcorp.example",
            "localhost.evil.example",
        ] {
            #expect(!rule.allows(refused), "\(refused ?? "nil")")
        }
    }

    @Test func anyIPLiteralWhenBoundToEveryInterface() {
        for bind in ["0.0.0.0", "::"] {
            let rule = AdmissionPolicy.AllowedHosts(bindAddress: bind)
            #expect(rule.allows("10.1.2.3:8080"))
            #expect(rule.allows("[fe80::1]:8080"))
            #expect(!rule.allows("rebound.evil.example:8080"))
        }
    }

    // MARK: Bearer

    @Test func bearerTokensMatchExactly() {
        #expect(AdmissionPolicy.bearerMatches("Bearer s3cret", token: "s3cret"))
        #expect(AdmissionPolicy.bearerMatches("bearer   s3cret ", token: "s3cret"))
        #expect(!AdmissionPolicy.bearerMatches(nil, token: "s3cret"))
        #expect(!AdmissionPolicy.bearerMatches("s3cret", token: "s3cret"))
        #expect(!AdmissionPolicy.bearerMatches("Basic s3cret", token: "s3cret"))
        #expect(!AdmissionPolicy.bearerMatches("Bearer s3cre", token: "s3cret"))
        #expect(!AdmissionPolicy.bearerMatches("Bearer s3cretX", token: "s3cret"))
        #expect(!AdmissionPolicy.bearerMatches("Bearer ", token: ""))
    }

    // MARK: Descriptors

    @Test func connectionTableStaysBelowTheOpenFileLimit() {
        let tight = FileDescriptorBudget(openFileLimit: 1_024, reserve: 128, maxConnections: 10_000)
        #expect(tight.tableSize == 896)
        #expect(tight.maxConnections == 864)
        #expect(tight.acceptCeiling == 896)
        let roomy = FileDescriptorBudget(openFileLimit: 1 << 20, reserve: 128, maxConnections: 10_000)
        #expect(roomy.tableSize == 10_032)
        #expect(roomy.maxConnections == 10_000)
        #expect(roomy.acceptCeiling == (1 << 20) - 128)
        let absurd = FileDescriptorBudget(openFileLimit: 16, reserve: 128, maxConnections: 10)
        #expect(absurd.maxConnections >= 1)
    }

    @Test func theSoftLimitIsRaisedToTheHardOne() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        #expect(FileDescriptorBudget.raiseOpenFileLimit() == min(1 << 20, Int(clamping: limit.rlim_max)))
    }

    // MARK: Over a socket

    @Test func theHostSeesTheForwardedClientAddress() throws {
        let opened = Locked<[ConnectionInfo]>([])
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configuration.libraryLogLevel = .error
        configuration.trustedProxies = ["127.0.0.1"]
        let server = try WebSocketServer(
            configuration: configuration, logger: Logger(label: "test-server", settings: quietLogs),
            onOpen: { _, info in opened.withLock { $0.append(info) } }, onMessage: { _, _ in })
        defer { server.stop() }
        let request = upgradeRequest(port: server.port).replacingOccurrences(
            of: "\r\n\r\n", with: "\r\nX-Forwarded-For: 198.51.100.1, 203.0.113.7\r\n\r\n")
        #expect(statusCode(rawRequest(port: server.port, request)) == 101)
        let deadline = Date().addingTimeInterval(3)
        while opened.withLock({ $0.isEmpty }), Date() < deadline { usleep(10_000) }
        let info = try #require(opened.withLock { $0.first })
        #expect(info.peerAddress == "127.0.0.1")
        #expect(info.clientAddress == "203.0.113.7")
    }

    @Test func upgradesPastThePerAddressLimitGet503() throws {
        let server = try makeEchoServer { $0.maxConnectionsPerAddress = 2 }
        defer { server.stop() }
        let sockets = (0..<2).map { _ in RawSocket(port: server.port) }
        defer { for socket in sockets { socket.close() } }
        for socket in sockets {
            #expect(statusCode(socket.send(upgradeRequest(port: server.port))) == 101)
        }
        let reply = rawRequest(port: server.port, upgradeRequest(port: server.port))
        #expect(statusCode(reply) == 503)
        #expect(reply.contains("too many connections from this address"))
        #expect(server.stats.refusals["address_limit"] == 1)
    }

    @Test func foreignHostGets403AtTheUpgrade() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let request = upgradeRequest(port: server.port).replacingOccurrences(
            of: "Host: 127.0.0.1:\(server.port)", with: "Host: evil.example:\(server.port)")
        #expect(statusCode(rawRequest(port: server.port, request)) == 403)
        #expect(server.stats.refusals["host"] == 1)
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080", "127.0.0.1:8080", false, true),
        ("http://127.0.0.1:8080", "127.0.0.1:8081", false, false),
        ("https://example.com", "example.com", true, true),
        ("http://example.com", "example.com", true, false),
        ("http://EXAMPLE.com:80", "example.com", false, true),
        ("http://evil.example:8080", "127.0.0.1:8080", false, false),
        ("null", "127.0.0.1:8080", false, false),
    ])
    func originMustBeTheServersOwn(origin: String, host: String, secure: Bool, allowed: Bool) {
        #expect(AdmissionPolicy.originAllowed(origin, host: host, secure: secure, allowedOrigins: []) == allowed)
    }

    @Test func listedOriginsPassAndNoHostRefuses() {
        #expect(
            AdmissionPolicy.originAllowed(
                "https://app.example", host: "api.example", secure: false, allowedOrigins: ["https://app.example"]))
        #expect(!AdmissionPolicy.originAllowed("http://a:1", host: nil, secure: false, allowedOrigins: []))
    }

    @Test func theSubprotocolIsSelectedOnlyWhenOffered() {
        #expect(
            AdmissionPolicy.selectedSubprotocol(offered: "chat, remote-modal.v1", supported: "remote-modal.v1")
                == "remote-modal.v1")
        #expect(AdmissionPolicy.selectedSubprotocol(offered: "remote-modal.v2", supported: "remote-modal.v1") == nil)
        #expect(AdmissionPolicy.selectedSubprotocol(offered: "", supported: "remote-modal.v1") == nil)
    }
}
