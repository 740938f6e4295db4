import Foundation
import RemoteModalCluster
import RemoteModalFlags
import RemoteModalHost
import RemoteModalLogging
import RemoteModalWebSocket

/// Everything `modal-host` can be told, from flags or `MODAL_HOST_*` variables.
public struct HostOptions: Sendable {
    /// The transport configuration.
    public var server = WebSocketServerConfiguration()
    /// The host configuration.
    public var host = ModalHostConfiguration()
    /// Echo mode instead of the demo flows.
    public var echo = false
    /// The log level.
    public var logLevel: LogLevel = .info
    /// The OpenID Connect issuer for the `login` flow, if any.
    public var oidcIssuer: String?
    /// The OpenID Connect client id.
    public var oidcClientID: String?
    /// The most bytes the demo's photo picker accepts.
    public var photoMaxBytes = 10 * 1_048_576
    /// Whether sessions get the `options` control (`--demo-options`).
    public var demoOptions = false
    /// Seconds the demo's "Save draft" keeps a mail (`--draft-lifetime`).
    public var draftLifetime = DemoFlows.defaultDraftLifetime

    /// The flags `modal-host` accepts.
    public static let parser = FlagParser(
        [
            FlagSpec("host", value: "ADDRESS", help: "address to bind (default 127.0.0.1)"),
            FlagSpec("port", value: "N", help: "TCP port (default 8080; 0 picks a free one)"),
            FlagSpec(
                "web-root", value: "PATH",
                help: "folder served at /, or 'none' (default: ./web, else the web/ beside the build)"),
            FlagSpec("tls-cert", value: "PATH", help: "PEM certificate for https and wss"),
            FlagSpec("tls-key", value: "PATH", help: "PEM private key for https and wss"),
            FlagSpec("token", value: "TOKEN", help: "access token every client must send in hello"),
            FlagSpec(
                "allowed-origin", value: "ORIGIN", help: "extra browser origin allowed to connect", repeatable: true),
            FlagSpec("retention", value: "SECONDS", help: "how long a session outlives its connection (default 60)"),
            FlagSpec(
                "hello-timeout", value: "SECONDS", help: "how long a new connection may wait before hello (default 10)"),
            FlagSpec("max-message-bytes", value: "N", help: "largest accepted message (default 65536)"),
            FlagSpec("rate", value: "N", help: "messages a second one connection may send (default 100)"),
            FlagSpec("burst", value: "N", help: "messages one connection may send at once above --rate (default 200)"),
            FlagSpec(
                "token-file", value: "PATH",
                help: "JSON file of tokens, each with the name and groups it grants (docs/security.md)"),
            FlagSpec("max-sessions", value: "N", help: "sessions alive at once, connected or retained (default 10000)"),
            FlagSpec(
                "max-sessions-per-address", value: "N",
                help: "sessions alive at once from one client address (default 64)"
            ),
            FlagSpec(
                "max-retained-sessions", value: "N",
                help: "sessions kept for resume without a connection; past it the oldest end early (default 2000)"),
            FlagSpec(
                "hello-time-per-turn", value: "MICROSECONDS",
                help:
                    "time one loop turn may spend on hellos (new and resumed sessions); the rest wait for later turns, round robin by address (default 1000; 0: no bound)"
            ),
            FlagSpec("upload-window", value: "N", help: "upload chunks a client may keep unacknowledged (default 8)"),
            FlagSpec(
                "no-binary-uploads",
                help: "refuse upload chunks in binary frames (welcome offers none; base64 in text only)"),
            FlagSpec(
                "upload-rate", value: "BYTES", help: "upload bytes a second per connection (default 33554432: 32 MiB)"),
            FlagSpec(
                "max-upload-memory", value: "BYTES",
                help: "upload bytes held in memory across the host, then spooled (default 67108864: 64 MiB)"),
            FlagSpec(
                "max-upload-spool", value: "BYTES",
                help:
                    "bytes of uploads in progress across the host; its last quarter only for addresses holding at most an eighth of --max-upload-per-address (default 1073741824: 1 GiB)"
            ),
            FlagSpec(
                "max-upload-per-address", value: "BYTES",
                help: "bytes of uploads in progress one client address may hold (default 134217728: 128 MiB)"),
            FlagSpec(
                "upload-stall", value: "SECONDS",
                help: "an upload with no chunk for this long is dropped, freeing its budget (default 60)"),
            FlagSpec(
                "upload-min-rate", value: "BYTES",
                help: "bytes a second a file in progress must average once --upload-stall has passed,"
                    + " or it is dropped (default 16384; 0: no minimum)"),
            FlagSpec("spool-dir", value: "PATH", help: "folder for upload spool files (default: one under $TMPDIR)"),
            FlagSpec(
                "short-link-misses", value: "N",
                help: "wrong short sign-in link codes one address may try a minute, then 429 (default 20; 0: no limit)"),
            FlagSpec(
                "short-link-lockout", value: "SECONDS",
                help: "how long an address past --short-link-misses is answered 429 (default 300)"),
            FlagSpec("photo-max-bytes", value: "BYTES", help: "the demo photo picker's limit (default 10485760)"),
            FlagSpec(
                "draft-lifetime", value: "SECONDS",
                help: "how long the demo's Save draft keeps a mail for its screen (default 300)"),
            FlagSpec("log-level", value: "LEVEL", help: "trace, debug, info, warning or error (default info)"),
            FlagSpec("oidc-issuer", value: "URL", help: "OpenID Connect issuer for the login flow"),
            FlagSpec("oidc-client-id", value: "ID", help: "OpenID Connect client id for the login flow"),
            FlagSpec(
                "public-url", value: "URL", help: "the URL clients reach this host at (behind a balancer: its URL)"),
            FlagSpec("instance", value: "NAME", help: "this host's name behind a balancer (routes auth callbacks)"),
            FlagSpec(
                "cluster", value: "URL",
                help: "join a cluster through Redis at redis://[USER:PASSWORD@]HOST:PORT[/DB] (docs/deployment.md)"),
            FlagSpec(
                "cluster-key-file", value: "PATH",
                help: "file holding the cluster key (32 bytes or more) every backplane message is signed with"),
            FlagSpec(
                "cluster-password-file", value: "PATH",
                help: "file holding the Redis password (AUTH), instead of one in the --cluster URL"),
            FlagSpec(
                "cluster-insecure",
                help: "join a cluster without a key: unsigned backplane messages, believed (local tests only)"),
            FlagSpec(
                "cluster-expiry", value: "SECONDS",
                help: "how long a silent host's sessions stay in the cluster's groups (default 15)"),
            FlagSpec(
                "max-connections", value: "N",
                help: "WebSocket connections at once (default 10000; lowered to fit the open-file limit)"),
            FlagSpec(
                "max-connections-per-address", value: "N",
                help: "WebSocket connections one client address may hold (default 64)"),
            FlagSpec(
                "socket-churn-per-address", value: "N",
                help: "sockets a second one address may have end without a WebSocket upgrade (or within 10 s of "
                    + "it), after twice that at once; past it its new sockets are closed on arrival (default 64; "
                    + "0: no limit)"),
            FlagSpec(
                "trusted-proxy", value: "ADDRESS",
                help: "proxy whose X-Forwarded-For names the client (IP address)", repeatable: true),
            FlagSpec(
                "allowed-host", value: "NAME",
                help: "extra Host header name to serve (.example.com: every subdomain)", repeatable: true),
            FlagSpec(
                "max-outgoing-memory", value: "BYTES",
                help: "bytes waiting to be sent across all connections (default 268435456: 256 MiB)"),
            FlagSpec(
                "socket-send-buffer", value: "BYTES",
                help: "kernel send buffer of each connection; 0: the kernel's, growing to megabytes (default 262144)"),
            FlagSpec(
                "ping-interval", value: "SECONDS",
                help: "silence before the host pings a connection; it drops one silent for 3 intervals (default 20)"),
            FlagSpec(
                "receive-buffer", value: "BYTES",
                help: "libwebsockets' read size and per-connection receive buffer (default 65536)"),
            FlagSpec(
                "event-loop", value: "libev|poll",
                help: "what the service thread waits on: libev (epoll; needs libwebsockets-evlib-ev) or lws's poll() "
                    + "(default libev)"),
            FlagSpec("metrics-token", value: "TOKEN", help: "bearer token /metrics requires (default: none needed)"),
            FlagSpec("echo", help: "echo every message back (conformance suites and benchmarks)"),
            FlagSpec("demo-options", help: "add an 'options' control showing the optional modal fields (tests)"),
        ], environmentPrefix: "MODAL_HOST")

    /// Creates the defaults.
    public init() {}

    /// Parses the command line.
    /// - Parameters:
    ///   - arguments: The arguments without the program name.
    ///   - environment: The environment, for `MODAL_HOST_*` defaults.
    /// - Returns: The options, or `nil` when `--help` was asked for.
    /// - Throws: `FlagError` with a message for the person who typed it.
    public static func parse(_ arguments: [String], environment: [String: String]) throws -> HostOptions? {
        let flags = try parser.parse(arguments, environment: environment)
        if flags.has("help") { return nil }
        var options = HostOptions()
        options.server.host = flags.string("host") ?? options.server.host
        options.server.port = try flags.int("port", in: 0...65_535) ?? options.server.port
        switch flags.string("web-root") {
        case nil: options.webRootChoice = .searched
        case "none"?, ""?: options.webRootChoice = .none
        case let path?: options.webRootChoice = .given(path)
        }
        options.server.webRoot = options.webRootChoice.path
        options.server.maxMessageBytes = try flags.int("max-message-bytes", in: 1_024...(64 << 20)) ?? 65_536
        options.server.allowedOrigins = flags.strings("allowed-origin")
        switch (flags.string("tls-cert"), flags.string("tls-key")) {
        case (let cert?, let key?):
            options.server.tls = TLSConfiguration(certificatePath: cert, privateKeyPath: key)
        case (nil, nil):
            break
        default:
            throw FlagError.unusable(flag: "tls-cert", reason: "--tls-cert and --tls-key go together")
        }
        options.host.accessToken = flags.string("token")
        options.host.retentionSeconds = try flags.seconds("retention") ?? 60
        options.host.helloTimeoutSeconds = try flags.seconds("hello-timeout") ?? 10
        options.host.messagesPerSecond = Double(try flags.int("rate", in: 1...1_000_000) ?? 100)
        options.host.messageBurst = Double(try flags.int("burst", in: 1...1_000_000) ?? 200)
        if let path = flags.string("token-file") {
            do {
                options.host.tokenGrants = try TokenGrant.load(path: path)
            } catch {
                throw FlagError.unusable(
                    flag: "token-file", reason: "\(error) (format: docs/security.md, \"Token file\")")
            }
        }
        options.host.maxSessions = try flags.int("max-sessions", in: 1...10_000_000) ?? 10_000
        options.host.maxSessionsPerAddress = try flags.int("max-sessions-per-address", in: 1...10_000_000) ?? 64
        options.host.maxRetainedSessions = try flags.int("max-retained-sessions", in: 0...10_000_000) ?? 2_000
        options.host.helloMicrosecondsPerTurn = try flags.int("hello-time-per-turn", in: 0...10_000_000) ?? 1_000
        options.server.maxOutgoingBytes =
            try flags.int("max-outgoing-memory", in: 1_048_576...(1 << 40)) ?? 256 * 1_048_576
        options.server.socketSendBufferBytes =
            try flags.int("socket-send-buffer", in: 0...(1 << 30)) ?? 256 * 1_024
        options.server.receiveBufferBytes = try flags.int("receive-buffer", in: 1_024...1_048_576) ?? 65_536
        options.server.pingIntervalSeconds = try flags.int("ping-interval", in: 1...3_600) ?? 20
        options.host.uploadWindow = try flags.int("upload-window", in: 1...1_024) ?? 8
        options.host.binaryUploads = !flags.has("no-binary-uploads")
        options.host.uploadBytesPerSecond = try flags.int("upload-rate", in: 1_024...Int(Int32.max)) ?? 32 * 1_048_576
        options.host.maxUploadMemoryBytes = try flags.int("max-upload-memory", in: 0...(1 << 40)) ?? 64 * 1_048_576
        options.host.maxUploadSpoolBytes = try flags.int("max-upload-spool", in: 0...(1 << 40)) ?? 1_024 * 1_048_576
        options.host.spoolDirectory = flags.string("spool-dir")
        options.host.maxUploadBytesPerAddress =
            try flags.int("max-upload-per-address", in: 0...(1 << 40)) ?? 128 * 1_048_576
        options.host.uploadStallSeconds = try flags.seconds("upload-stall") ?? 60
        options.host.shortLinkMissesPerMinute = try flags.int("short-link-misses", in: 0...1_000_000) ?? 20
        options.host.shortLinkLockoutSeconds = try flags.seconds("short-link-lockout") ?? 300
        options.host.uploadMinimumBytesPerSecond = Double(try flags.int("upload-min-rate", in: 0...(1 << 40)) ?? 16_384)
        options.photoMaxBytes = try flags.int("photo-max-bytes", in: 1...Int(Int32.max)) ?? 10 * 1_048_576
        options.draftLifetime = Double(try flags.int("draft-lifetime", in: 1...86_400) ?? 300)
        if let name = flags.string("event-loop") {
            guard let backend = EventLoopBackend(rawValue: name) else {
                throw FlagError.invalidValue(flag: "event-loop", value: name, expected: "libev or poll")
            }
            options.server.eventLoop = backend
        }
        if let name = flags.string("log-level") {
            guard let level = LogLevel(name: name) else {
                throw FlagError.invalidValue(
                    flag: "log-level", value: name, expected: "a log level (trace, debug, info, warning, error)")
            }
            options.logLevel = level
        }
        options.oidcIssuer = flags.string("oidc-issuer")
        options.oidcClientID = flags.string("oidc-client-id")
        if options.oidcIssuer != nil, options.oidcClientID == nil {
            throw FlagError.unusable(flag: "oidc-issuer", reason: "needs --oidc-client-id too")
        }
        options.echo = flags.has("echo")
        options.demoOptions = flags.has("demo-options")
        options.publicURL = flags.string("public-url")
        try parseAdmission(flags, into: &options)
        options.host.instance = flags.string("instance")
        let expiry = try flags.seconds("cluster-expiry") ?? 15
        if let url = flags.string("cluster") {
            let (password, key) = try clusterSecrets(flags)
            do {
                options.host.cluster = try ClusterConfiguration.redis(
                    url: url, password: password, key: key, hostName: options.host.instance,
                    membershipExpirySeconds: expiry)
            } catch {
                // Not the URL itself: it may hold the password.
                throw FlagError.unusable(
                    flag: "cluster", reason: "\(error) (expected redis://[USER:PASSWORD@]HOST:PORT[/DB])")
            }
        }
        return options
    }

    /// `--cluster-password-file` and `--cluster-key-file` read, or `--cluster-insecure`.
    private static func clusterSecrets(_ flags: ParsedFlags) throws -> (password: String?, key: ClusterKey?) {
        var password: String?
        if let path = flags.string("cluster-password-file") {
            guard let data = FileManager.default.contents(atPath: path),
                let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
                !text.isEmpty
            else {
                throw FlagError.unusable(flag: "cluster-password-file", reason: "cannot read a password from '\(path)'")
            }
            password = text
        }
        guard let path = flags.string("cluster-key-file") else {
            guard flags.has("cluster-insecure") else {
                throw FlagError.unusable(
                    flag: "cluster",
                    reason: "needs --cluster-key-file (every host the same key: openssl rand -hex 32 > cluster.key),"
                        + " or --cluster-insecure for a local test (docs/deployment.md)")
            }
            return (password, nil)
        }
        do {
            return (password, try ClusterKey(contentsOfFile: path))
        } catch {
            throw FlagError.unusable(flag: "cluster-key-file", reason: error.description)
        }
    }

    private static func parseAdmission(_ flags: ParsedFlags, into options: inout HostOptions) throws {
        options.server.maxConnections = try flags.int("max-connections", in: 1...1_000_000) ?? 10_000
        options.server.maxConnectionsPerAddress =
            try flags.int("max-connections-per-address", in: 1...1_000_000) ?? 64
        options.server.socketChurnPerAddress = try flags.int("socket-churn-per-address", in: 0...1_000_000) ?? 64
        options.server.socketChurnBurstPerAddress = max(1, 2 * options.server.socketChurnPerAddress)
        options.server.trustedProxies = try flags.strings("trusted-proxy").map { address in
            guard let canonical = AdmissionPolicy.normalizedIP(address) else {
                throw FlagError.invalidValue(flag: "trusted-proxy", value: address, expected: "an IP address")
            }
            return canonical
        }
        options.server.allowedHosts = flags.strings("allowed-host").map { $0.lowercased() }
        if let publicURL = options.publicURL {
            guard let host = URL(string: publicURL)?.host, !host.isEmpty else {
                throw FlagError.invalidValue(flag: "public-url", value: publicURL, expected: "an absolute URL")
            }
            options.server.publicHost = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        }
        if let token = flags.string("metrics-token") {
            guard !token.isEmpty else {
                throw FlagError.unusable(flag: "metrics-token", reason: "the token must not be empty")
            }
            options.server.metricsToken = token
        }
    }

    /// Where the page comes from: `--web-root PATH`, `--web-root none`, or searched for.
    public enum WebRootChoice: Sendable, Equatable {
        /// No `--web-root`: `./web`, else the `web/` of the checkout the executable was built
        /// in, else an installed copy (`WebRootSearch`).
        case searched
        /// `--web-root none` (or empty): no page, only the WebSocket and HTTP endpoints.
        case none
        /// `--web-root PATH`: that folder, which must hold `index.html`.
        case given(String)

        /// The folder to serve for a choice that names one.
        var path: String? {
            if case .given(let path) = self { path } else { nil }
        }
    }

    /// How the web root was chosen (`resolveWebRoot` turns it into a folder).
    public var webRootChoice = WebRootChoice.searched

    /// Settles the folder served at `/`, or says why the host must not start: a host that
    /// says "open in a browser" and then answers `/` with an error misleads whoever started
    /// it (a first run from another folder did).
    /// - Parameter search: Where to look when no `--web-root` was given.
    /// - Throws: `FlagError.unusable` naming `web-root`, the folder and what to pass instead.
    public mutating func resolveWebRoot(_ search: WebRootSearch = WebRootSearch()) throws {
        switch webRootChoice {
        case .none:
            server.webRoot = nil
        case .given(let path):
            guard WebRootSearch.holdsPage(path) else {
                let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
                throw FlagError.unusable(
                    flag: "web-root",
                    reason: "'\(absolute)' has no index.html: pass the folder that holds the page"
                        + " (this repository's web/), or --web-root none to serve no page")
            }
            server.webRoot = path
        case .searched:
            guard let found = search.find() else {
                throw FlagError.unusable(
                    flag: "web-root",
                    reason: "no page found (looked in \(search.candidates.joined(separator: ", "))):"
                        + " pass --web-root PATH (this repository's web/), or --web-root none to serve no page")
            }
            server.webRoot = found
        }
    }

    /// `--public-url`, if given.
    public var publicURL: String?

    /// The URL clients use to reach this host (for callback URLs).
    public var publicBaseURL: String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let scheme = server.tls == nil ? "http" : "https"
        let address = server.host == "0.0.0.0" ? "127.0.0.1" : server.host
        return "\(scheme)://\(address):\(server.port)"
    }
}
