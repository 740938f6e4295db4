import RemoteModalHost
import RemoteModalRedis
import Synchronization

// The Redis implementation of the host's `ClusterBackplane` seam. It lives outside
// RemoteModalHost so that a host which never joins a cluster links neither hiredis nor this.

extension ClusterConfiguration {
    /// A cluster through Redis at `redis://[[USER]:PASSWORD@]HOST:PORT[/DB]`.
    /// - Parameters:
    ///   - url: The Redis URL (with the password for `AUTH`, if Redis asks for one).
    ///   - password: A password for `AUTH` that replaces the URL's (read from a file, so that it
    ///     is not on a command line), or `nil`.
    ///   - key: The cluster key every message is signed with (`nil`: unsigned, a local test only).
    ///   - hostName: See `init`.
    ///   - membershipExpirySeconds: See `membershipExpirySeconds`.
    /// - Returns: The configuration.
    /// - Throws: `RedisError` `badEndpoint` for a malformed URL.
    public static func redis(
        url: String, password: String? = nil, key: ClusterKey? = nil, hostName: String? = nil,
        membershipExpirySeconds: Double = 15
    ) throws -> ClusterConfiguration {
        var endpoint = try RedisEndpoint(url: url)
        if let password { endpoint.password = password }
        return redis(endpoint: endpoint, key: key, hostName: hostName, membershipExpirySeconds: membershipExpirySeconds)
    }

    /// A cluster through Redis at an endpoint (its password read from a file, for example).
    /// - Parameters:
    ///   - endpoint: Where Redis is and how to log in.
    ///   - key: The cluster key every message is signed with (`nil`: unsigned, a local test only).
    ///   - hostName: See `init`.
    ///   - membershipExpirySeconds: See `membershipExpirySeconds`.
    /// - Returns: The configuration.
    public static func redis(
        endpoint: RedisEndpoint, key: ClusterKey?, hostName: String? = nil, membershipExpirySeconds: Double = 15
    ) -> ClusterConfiguration {
        ClusterConfiguration(
            backplane: RedisBackplane(endpoint: endpoint), hostName: hostName,
            membershipExpirySeconds: membershipExpirySeconds, key: key)
    }
}

/// The cluster backplane on Redis: a subscriber connection on its own thread and a command
/// connection for `PUBLISH` and the `SET NX PX` claims, both reconnecting with backoff.
public final class RedisBackplane: ClusterBackplane {
    private let endpoint: RedisEndpoint
    private let commands: RedisClient
    private let subscriber = Mutex<RedisSubscriber?>(nil)

    /// Creates a backplane (it connects in `start`).
    /// - Parameters:
    ///   - endpoint: Where Redis is.
    ///   - backoff: Reconnection delays.
    public init(endpoint: RedisEndpoint, backoff: RedisBackoff = RedisBackoff(initial: 0.1, maximum: 2)) {
        self.endpoint = endpoint
        commands = RedisClient(endpoint: endpoint, timeoutMilliseconds: 1_000, backoff: backoff)
        self.backoff = backoff
    }

    private let backoff: RedisBackoff

    /// Subscribes on a thread of its own.
    public func start(channels: [String], events: ClusterBackplaneEvents) {
        let commands = self.commands
        let subscriber = RedisSubscriber(
            endpoint: endpoint, channels: channels, backoff: backoff,
            onState: { subscribed, error in
                if let error { events.failed(error.description) }
                // Redis answers again: what the host publishes next need not wait.
                if subscribed { commands.retryNow() }
                events.connected(subscribed)
            },
            onMessage: { channel, payload in events.message(channel, payload) })
        self.subscriber.withLock { $0 = subscriber }
        subscriber.start()
    }

    /// `PUBLISH`.
    public func publish(_ channel: String, _ payload: String) {
        commands.send(["PUBLISH", channel, payload]) { _ in }
    }

    /// `SET key value NX PX ttl`: `OK` wins, nil loses (unless the key already holds `value`).
    public func claim(
        _ key: String, value: String, ttlSeconds: Double, _ done: @escaping @Sendable (ClusterClaim) -> Void
    ) {
        let milliseconds = String(max(1, Int(ttlSeconds * 1_000)))
        let commands = self.commands
        commands.send(["SET", key, value, "NX", "PX", milliseconds]) { result in
            switch result {
            case .success(.status("OK")): done(.won)
            case .success(.null):
                // A command retried after a broken connection may have set the key the
                // first time: the value decides.
                commands.send(["GET", key]) { reply in
                    switch reply {
                    case .success(.string(let held)): done(held == value ? .won : .lost)
                    default: done(.unavailable)
                    }
                }
            default: done(.unavailable)
            }
        }
    }

    /// `GET key`.
    public func claimValue(_ key: String, _ done: @escaping @Sendable (String?) -> Void) {
        commands.send(["GET", key]) { reply in
            if case .success(.string(let value)) = reply { done(value) } else { done(nil) }
        }
    }

    /// `PING` on the command connection (which Redis's pub/sub output limit does not cut).
    public func reachable(_ done: @escaping @Sendable (Bool) -> Void) {
        commands.send(["PING"]) { reply in
            if case .success(.status("PONG")) = reply { done(true) } else { done(false) }
        }
    }

    /// Stops the subscriber thread and drops the command connection.
    public func stop() {
        let subscriber = self.subscriber.withLock { value -> RedisSubscriber? in
            defer { value = nil }
            return value
        }
        subscriber?.stop()
        commands.close()
    }
}
