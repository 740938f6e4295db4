import RemoteModalHost
import RemoteModalRedis
import Synchronization

// The Redis implementation of the host's `ClusterBackplane` seam. It lives outside
// RemoteModalHost so that a host which never joins a cluster links neither hiredis nor this.

extension ClusterConfiguration {
    /// A cluster through Redis at `redis://HOST:PORT[/DB]`.
    /// - Parameters:
    ///   - url: The Redis URL.
    ///   - hostName: See `init`.
    ///   - membershipExpirySeconds: See `membershipExpirySeconds`.
    /// - Returns: The configuration.
    /// - Throws: `RedisError` `badEndpoint` for a malformed URL.
    public static func redis(url: String, hostName: String? = nil, membershipExpirySeconds: Double = 15) throws
        -> ClusterConfiguration
    {
        let endpoint = try RedisEndpoint(url: url)
        return ClusterConfiguration(
            backplane: RedisBackplane(endpoint: endpoint), hostName: hostName,
            membershipExpirySeconds: membershipExpirySeconds)
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
        let subscriber = RedisSubscriber(
            endpoint: endpoint, channels: channels, backoff: backoff,
            onState: { subscribed, _ in events.connected(subscribed) },
            onMessage: { channel, payload in events.message(channel, payload) })
        self.subscriber.withLock { $0 = subscriber }
        subscriber.start()
    }

    /// `PUBLISH`.
    public func publish(_ channel: String, _ payload: String) {
        commands.send(["PUBLISH", channel, payload]) { _ in }
    }

    /// `SET key owner NX PX ttl`: `OK` wins, nil loses.
    public func claim(
        _ key: String, owner: String, ttlSeconds: Double, _ done: @escaping @Sendable (ClusterClaim) -> Void
    ) {
        let milliseconds = String(max(1, Int(ttlSeconds * 1_000)))
        let commands = self.commands
        let ownerName = owner
        commands.send(["SET", key, owner, "NX", "PX", milliseconds]) { result in
            switch result {
            case .success(.status("OK")): done(.won)
            case .success(.null):
                // A command retried after a broken connection may have set the key the
                // first time: the owner decides.
                commands.send(["GET", key]) { reply in
                    switch reply {
                    case .success(.string(let value)): done(value == ownerName ? .won : .lost)
                    default: done(.unavailable)
                    }
                }
            default: done(.unavailable)
            }
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
