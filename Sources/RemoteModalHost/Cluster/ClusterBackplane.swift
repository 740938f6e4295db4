import Foundation

/// What a host needs from the shared engine that joins hosts into a cluster: pub/sub
/// channels and one atomic "first one wins" operation. `RedisBackplane` (in
/// RemoteModalCluster) is the real one;
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
    /// Claims `key` with `value` if nobody has: atomically, across every host.
    /// - Parameters:
    ///   - key: The key (derived from a presentation's id).
    ///   - value: The claim's value (signed by the host: who answered, and the answer).
    ///   - ttlSeconds: How long the claim is remembered.
    ///   - done: Called once with the outcome (`won` also when `key` already holds `value`: a
    ///     command retried after a broken connection).
    func claim(_ key: String, value: String, ttlSeconds: Double, _ done: @escaping @Sendable (ClusterClaim) -> Void)
    /// The value a claim holds (`GET key`): the origin checks an answer against it, so that a
    /// message alone cannot resolve a presentation, and reads it again after a lost
    /// subscription, so that an answer given meanwhile is not lost.
    /// - Parameters:
    ///   - key: The key of `claim`.
    ///   - done: Called once with the value, or `nil` when nobody holds it or the backplane
    ///     cannot say.
    func claimValue(_ key: String, _ done: @escaping @Sendable (String?) -> Void)
    /// Whether the engine answers commands now (`PING`), asked when the subscription is lost:
    /// a subscription cut while Redis still answers (its `client-output-buffer-limit pubsub`
    /// tripped by one huge message) leaves pending cluster presentations waiting for the
    /// subscription to return, an engine that does not answer fails them at once.
    /// - Parameter done: Called once with the answer.
    func reachable(_ done: @escaping @Sendable (Bool) -> Void)
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
    /// Why connecting or staying subscribed failed (`AUTH refused: WRONGPASS ...`), for the
    /// log; never holds a password.
    public var failed: @Sendable (_ reason: String) -> Void

    /// Creates the events.
    /// - Parameters:
    ///   - connected: State changes.
    ///   - message: Messages.
    ///   - failed: Failures, for the log.
    public init(
        connected: @escaping @Sendable (Bool) -> Void, message: @escaping @Sendable (String, String) -> Void,
        failed: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.connected = connected
        self.message = message
        self.failed = failed
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
    /// How long pending cluster presentations wait for a lost subscription to return while the
    /// backplane still answers commands (one huge `PUBLISH` made Redis cut every subscriber);
    /// past it they fail with `clusterUnavailable`, as they do at once when it does not answer.
    public var resubscribeGraceSeconds: Double = 30
    /// The key every backplane message is signed with and checked against; `nil` sends and
    /// accepts unsigned messages (a local test only: anyone who can write to the backplane
    /// then speaks for every host). `modal-host` refuses to start without one unless told
    /// `--cluster-insecure`.
    public var key: ClusterKey?
    /// How old (or how far ahead, by the receiver's clock) a signed message may be; older
    /// ones are dropped as replays.
    public var maxMessageAgeSeconds: Double = 60
    /// Bytes of membership changes a second one client address may cause this host to
    /// publish (above `memberBurstBytesPerAddress`); changes past it wait and coalesce.
    public var memberBytesPerSecondPerAddress: Double = 4_096
    /// Bytes of membership changes one client address may cause at once.
    public var memberBurstBytesPerAddress: Double = 16_384
    /// The shortest time between two publications of one session's membership.
    public var memberUpdateIntervalSeconds: Double = 0.5

    /// Creates a configuration.
    /// - Parameters:
    ///   - backplane: The shared engine.
    ///   - hostName: A readable prefix for this host's cluster id (`--instance`), or `nil`.
    ///   - membershipExpirySeconds: See `membershipExpirySeconds`.
    ///   - key: See `key`.
    public init(
        backplane: any ClusterBackplane, hostName: String? = nil, membershipExpirySeconds: Double = 15,
        key: ClusterKey? = nil
    ) {
        self.backplane = backplane
        self.key = key
        var generator = SystemRandomNumberGenerator()
        let random: UInt64 = generator.next()
        let suffix = String(random & 0xFF_FFFF_FFFF, radix: 36)
        self.hostID = (hostName ?? "host") + "-" + suffix
        self.membershipExpirySeconds = membershipExpirySeconds
    }
}
