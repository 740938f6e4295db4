import Foundation
import RemoteModalCrypto
import RemoteModalProtocol
import RemoteModalReactive

/// One session of another host, as its heartbeat describes it.
struct ClusterMember: Sendable, Equatable {
    /// A one-way key for the session (never its id: ids are bearer secrets).
    let key: String
    let client: ClientDescription
    let capabilities: Set<String>
}

extension ClusterMember {
    /// The member as a backplane entry.
    var json: JSONValue {
        [
            "key": .string(key), "kind": .string(client.kind), "name": .string(client.name),
            "group": client.group.map(JSONValue.string) ?? .null,
            "capabilities": .array(capabilities.sorted().map(JSONValue.string)),
        ]
    }

    /// The bytes of `json` as it goes on the backplane, escaping included (what the
    /// per-address budget is charged: a name of 256 control characters is 1,536 bytes there).
    var wireBytes: Int { json.jsonText.utf8.count }

    /// A backplane entry read back, held to the bounds a local `hello` is held to.
    init?(_ entry: JSONValue) {
        guard let key = entry["key"]?.stringValue, key.utf8.count <= 64,
            let kind = entry["kind"]?.stringValue, kind.utf8.count <= ClientDescription.maxKindBytes,
            let name = entry["name"]?.stringValue, name.utf8.count <= ClientDescription.maxNameBytes,
            let list = entry["capabilities"]?.arrayValue, list.count <= Hello.maxCapabilities
        else { return nil }
        let group = entry["group"]?.stringValue
        guard (group?.utf8.count ?? 0) <= ClientDescription.maxNameBytes else { return nil }
        let capabilities = list.compactMap(\.stringValue).filter { $0.utf8.count <= Hello.maxCapabilityBytes }
        self.init(
            key: key, client: ClientDescription(kind: kind, name: name, group: group),
            capabilities: Set(capabilities))
    }
}

/// Another host of the cluster, what it said of its members and when it was last heard of.
struct ClusterPeer {
    /// Its members by key, as of `seq`.
    var members: [String: ClusterMember] = [:]
    var lastSeen: Date
    /// The number of its last membership delta applied here.
    var seq = 0
    /// Whether `members` is its whole membership as of `seq` (a snapshot arrived and no
    /// delta was missed since).
    var synced = false
    /// When this host last asked it for a snapshot.
    var syncRequestedAt: Date?
}

/// A presentation's part in the cluster: at the origin (the host whose flow asked),
/// which other hosts show copies; at a copy, which host and presentation it belongs to.
/// Executor-confined (`@unchecked Sendable` only so hopping closures can carry it).
final class ClusterLink: @unchecked Sendable {
    /// The presentation's cluster-wide id (`HOSTID.N`).
    let id: String
    /// The origin host's id.
    let origin: String
    /// Whether this host is the origin.
    let isOrigin: Bool
    /// At the origin: the hosts still showing copies.
    var remoteHosts: Set<String> = []

    init(id: String, origin: String, isOrigin: Bool) {
        self.id = id
        self.origin = origin
        self.isOrigin = isOrigin
    }
}

/// What an answering client sent, as it crosses hosts.
enum ClusterAnswerWire: Sendable {
    case result(JSONValue)
    case failure(FailureCode, String?)
}

/// The host's cluster state. Executor-confined: every `var` is read and written only on
/// the host executor (`@unchecked Sendable` only so closures hopping onto it can carry it).
final class ClusterState: @unchecked Sendable {
    let configuration: ClusterConfiguration
    var connected = false
    var peers: [String: ClusterPeer] = [:]
    /// Presentations this host asked for that have copies elsewhere, by cluster id.
    var origins: [String: Presentation] = [:]
    /// Copies shown here for other hosts' presentations, by cluster id.
    var copies: [String: Presentation] = [:]
    var nextNumber = 1
    var heartbeat: (any Disposable)?
    var stopped = false

    // Membership as deltas (joined, left), never the whole list on a change.

    /// What the other hosts have been told of this host's members, by key.
    var published: [String: ClusterMember] = [:]
    /// The number of the last delta this host published.
    var seq = 0
    /// Sessions whose membership may have changed since it was last published, by member key.
    var dirty: [String: SessionState] = [:]
    /// When each member key was last published (a session's changes go out at most once per
    /// `memberUpdateIntervalSeconds`).
    var publishedAt: [String: Date] = [:]
    /// Bytes of membership each client address may still cause to be published.
    var addressBudgets: [String: ByteBudget] = [:]
    /// A flush is queued on the executor.
    var flushQueued = false
    /// A later flush for changes held back by the limits.
    var retry: (any Disposable)?
    /// When this host last answered each other host's `sync`.
    var snapshotSentAt: [String: Date] = [:]
    /// The stamp (`ts`) of the last `join` answered from each other host: a `join` is answered
    /// once, so a captured one replayed inside the message age costs nothing.
    var joinStamps: [String: Double] = [:]

    // A lost subscription.

    /// Since when the subscription is lost while the backplane may still answer commands (from
    /// the loss until a `PING` fails, or for good while it answers; `nil`: subscribed, or the
    /// backplane does not answer and nothing waits). Commands are sent meanwhile.
    var resubscribing: Date?
    /// Counts losses, so that a grace timer of an earlier one does nothing.
    var losses = 0
    /// Ends the grace of a lost subscription.
    var grace: (any Disposable)?
    /// Whether the subscription was ever live (a later one is a re-subscription).
    var everConnected = false

    // Checks on receipt.

    /// Ids of copies shown here recently (a replayed `present` is not shown twice).
    var recentCopies = RecentIDs(capacity: 4_096)
    /// Messages dropped, by reason.
    var rejected: [ClusterRejection: Int] = [:]
    /// The backplane's last failure and when it was logged.
    var lastFailure: String?
    var lastFailureLoggedAt: Date?
    /// When a drop was last logged (at most one line a second says the counts).
    var rejectionLoggedAt: Date?

    init(configuration: ClusterConfiguration) {
        self.configuration = configuration
    }

    var hostID: String { configuration.hostID }
    var backplane: any ClusterBackplane { configuration.backplane }

    static let broadcastChannel = "remote-modal:all"
    static func hostChannel(_ hostID: String) -> String { "remote-modal:host:" + hostID }
    /// The Redis key of a presentation's first-answer claim: unguessable without the cluster
    /// key (`ClusterKey.claimName`), the id itself only in an unsigned (test) cluster.
    func claimKey(_ presentationID: String) -> String {
        "remote-modal:answered:" + (configuration.key.map { $0.claimName(presentationID) } ?? presentationID)
    }

    /// A claim's value as it is written: the JSON of who answered (and what), signed for the
    /// claim's key (so a value moved to another presentation's claim fails).
    func sealClaim(_ body: JSONValue, key claimKey: String) -> String {
        let text = body.jsonText
        return configuration.key.map { $0.sign(text, channel: claimKey) } ?? text
    }

    /// A claim's value read back: the answer it records, or `nil` when it does not verify under
    /// the cluster key or is not this presentation's (a value written without the key is void).
    func openClaim(_ value: String, key claimKey: String, presentationID: String) -> JSONValue? {
        let body: String
        if let key = configuration.key {
            guard case .success(let opened) = key.open(value, channel: claimKey) else { return nil }
            body = String(opened)
        } else {
            body = value
        }
        guard let claim = try? JSONParser().parse(body), claim["id"]?.stringValue == presentationID,
            claim["host"]?.stringValue != nil, claim["member"]?.stringValue != nil
        else { return nil }
        return claim
    }

    /// The one-way member key of a session id.
    static func memberKey(_ sessionID: String) -> String {
        String(SHA256.hex(("remote-modal member " + sessionID).utf8).prefix(32))
    }

    /// A token's name on the backplane: a one-way function of it, the same on every host that
    /// has the token (the token itself never goes there).
    static func tokenKey(_ token: String) -> String {
        String(SHA256.hex(("remote-modal token " + token).utf8).prefix(32))
    }

    /// The prefix of the ids of `Session` handles that stand for another host's session.
    static let remotePrefix = "cluster:"

    func allocateID() -> String {
        defer { nextNumber += 1 }
        return "\(hostID).\(nextNumber)"
    }

    /// The host holding a member, if any live peer does.
    func host(ofMember key: String) -> (String, ClusterMember)? {
        for (hostID, peer) in peers.sorted(by: { $0.key < $1.key }) {
            if let member = peer.members[key] { return (hostID, member) }
        }
        return nil
    }

    /// Other hosts' members of a group, by host.
    func members(ofGroup group: String) -> [(String, [ClusterMember])] {
        peers.sorted { $0.key < $1.key }.compactMap { hostID, peer in
            let members = peer.members.values.filter { $0.client.group == group }.sorted { $0.key < $1.key }
            return members.isEmpty ? nil : (hostID, members)
        }
    }

    var memberCount: Int { peers.values.reduce(0) { $0 + $1.members.count } }

    /// The member a session is now, or `nil` when it is gone or has no connection.
    static func member(of session: SessionState) -> ClusterMember? {
        guard session.alive, !session.connections.isEmpty else { return nil }
        return ClusterMember(key: session.memberKey, client: session.client, capabilities: session.capabilities)
    }
}

/// A byte budget refilled over time (a token bucket counted in bytes). Pure; the caller
/// passes the time.
struct ByteBudget {
    let rate: Double
    let burst: Double
    private(set) var bytes: Double
    private var last: Double

    init(rate: Double, burst: Double, now: Double) {
        self.rate = rate
        self.burst = burst
        bytes = burst
        last = now
    }

    /// Refills to `now`; whether the budget is full again (it can be forgotten).
    mutating func refill(now: Double) -> Bool {
        bytes = min(burst, bytes + max(0, now - last) * rate)
        last = now
        return bytes >= burst
    }

    /// Spends `count` bytes if there are that many (after refilling to `now`).
    mutating func spend(_ count: Int, now: Double) -> Bool {
        _ = refill(now: now)
        guard bytes >= Double(count) else { return false }
        bytes -= Double(count)
        return true
    }
}

/// The last `capacity` ids seen, for "seen recently?" in constant memory.
struct RecentIDs {
    let capacity: Int
    private var order: [String] = []
    private var next = 0
    private var members: Set<String> = []

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ id: String) -> Bool { members.contains(id) }

    mutating func insert(_ id: String) {
        guard !members.contains(id) else { return }
        if order.count < capacity {
            order.append(id)
        } else {
            members.remove(order[next])
            order[next] = id
            next = (next + 1) % capacity
        }
        members.insert(id)
    }
}

extension ModalDescription {
    /// Whether the modal is shown only on the presenting host's sessions: pickers (their
    /// uploads are assembled where the flow waits) and web authentication (its callback
    /// is served by the host that waits for it).
    var staysOnHost: Bool {
        switch self {
        case .photoPicker, .mediaPicker, .webAuthentication: true
        default: false
        }
    }
}
