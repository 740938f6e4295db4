import Foundation
import Redis
import Synchronization

/// What a host needs from the shared engine that joins hosts into a cluster: pub/sub
/// channels and one atomic "first one wins" operation. `RedisBackplane` is the real one;
/// tests use an in-memory one.
///
/// Events and completions may arrive on any thread; the host hops onto its executor.
public protocol ClusterBackplane: Sendable {
    /// Starts: subscribes to `channels` and reports state changes and messages.
    /// - Parameters:
    ///   - channels: The channels this host listens to.
    ///   - events: Where to report.
    func start(channels: [String], events: ClusterBackplaneEvents)
    /// Publishes a message (fire and forget: a lost connection is reported through
    /// `events.connected(false)`).
    /// - Parameters:
    ///   - channel: The channel.
    ///   - payload: The message.
    func publish(_ channel: String, _ payload: String)
    /// Claims `key` for `owner` if nobody has: atomically, across every host.
    /// - Parameters:
    ///   - key: The key (a presentation's id).
    ///   - owner: Who claims it.
    ///   - ttlSeconds: How long the claim is remembered.
    ///   - done: Called once with the outcome.
    func claim(_ key: String, owner: String, ttlSeconds: Double, _ done: @escaping @Sendable (ClusterClaim) -> Void)
    /// Stops; no more events after it returns.
    func stop()
}

/// How a claim went.
public enum ClusterClaim: Sendable, Equatable {
    /// This owner was first.
    case won
    /// Someone else was first.
    case lost
    /// The backplane could not decide (unreachable).
    case unavailable
}

/// The backplane's reports to its host.
public struct ClusterBackplaneEvents: Sendable {
    /// The subscription is live (`true`) or lost (`false`, reconnecting with backoff).
    public var connected: @Sendable (Bool) -> Void
    /// A message on one of the subscribed channels.
    public var message: @Sendable (_ channel: String, _ payload: String) -> Void

    /// Creates the events.
    /// - Parameters:
    ///   - connected: State changes.
    ///   - message: Messages.
    public init(connected: @escaping @Sendable (Bool) -> Void, message: @escaping @Sendable (String, String) -> Void) {
        self.connected = connected
        self.message = message
    }
}

/// How a host takes part in a cluster.
public struct ClusterConfiguration: Sendable {
    /// The shared engine.
    public var backplane: any ClusterBackplane
    /// This host's name in the cluster (unique among live hosts; a random suffix is added).
    public var hostID: String
    /// How long a host's members stay known without a heartbeat; heartbeats go out every
    /// third of it. A dead host's sessions drop out of every group within this time.
    public var membershipExpirySeconds: Double = 15
    /// How long a presentation's "answered" claim is remembered in the backplane.
    public var claimTTLSeconds: Double = 3_600

    /// Creates a configuration.
    /// - Parameters:
    ///   - backplane: The shared engine.
    ///   - hostName: A readable prefix for this host's cluster id (`--instance`), or `nil`.
    ///   - membershipExpirySeconds: See `membershipExpirySeconds`.
    public init(backplane: any ClusterBackplane, hostName: String? = nil, membershipExpirySeconds: Double = 15) {
        self.backplane = backplane
        var generator = SystemRandomNumberGenerator()
        let random: UInt64 = generator.next()
        let suffix = String(random & 0xFF_FFFF_FFFF, radix: 36)
        self.hostID = (hostName ?? "host") + "-" + suffix
        self.membershipExpirySeconds = membershipExpirySeconds
    }

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
