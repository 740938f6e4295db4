import Dispatch
import RemoteModalHost
import RemoteModalLocking

/// A cluster backplane in memory, shared by the hosts of one test: pub/sub channels and
/// first-claim-wins, delivered in order on one queue. It can be taken down (as Redis
/// stopping) and a host can be cut off (as the host dying).
public final class InMemoryBackplaneHub: Sendable {
    struct Subscriber {
        let id: Int
        let channels: Set<String>
        let events: ClusterBackplaneEvents
    }

    struct State {
        var subscribers: [Subscriber] = []
        var claims: [String: String] = [:]
        var up = true
        /// Whether subscribers hear messages (`dropSubscriptions`).
        var subscribed = true
        var cutOff: Set<Int> = []
        var nextID = 1
        var claimsDecided = 0
    }

    let state = Locked(State())
    let queue = DispatchQueue(label: "in-memory-backplane")

    /// Creates a hub (up).
    public init() {}

    /// A backplane for one host.
    public func backplane() -> InMemoryBackplane {
        InMemoryBackplane(
            hub: self,
            id: state.withLock { state in
                defer { state.nextID += 1 }
                return state.nextID
            })
    }

    /// Takes the hub down (`false`: every host is told it lost it, messages and claims
    /// fail) or brings it back.
    public func setUp(_ up: Bool) {
        let subscribers = state.withLock { state in
            state.up = up
            if !up { state.claims = [:] }
            return state.subscribers.filter { !state.cutOff.contains($0.id) }
        }
        queue.async { for subscriber in subscribers { subscriber.events.connected(up) } }
    }

    /// Cuts a host's backplane off for good (its process died): it neither hears nor is heard.
    public func cutOff(_ backplane: InMemoryBackplane) {
        state.withLock { _ = $0.cutOff.insert(backplane.id) }
    }

    /// How many claims the hub decided.
    public var claimsDecided: Int { state.withLock { $0.claimsDecided } }

    /// Waits until everything published so far is delivered.
    public func settle() { queue.sync {} }

    func subscribe(_ id: Int, _ channels: [String], _ events: ClusterBackplaneEvents) {
        let up = state.withLock { state in
            state.subscribers.append(Subscriber(id: id, channels: Set(channels), events: events))
            return state.up
        }
        if up { queue.async { events.connected(true) } }
    }

    func publish(from id: Int, _ channel: String, _ payload: String) {
        let receivers: [Subscriber] = state.withLock { state in
            guard state.up, !state.cutOff.contains(id) else { return [] }
            guard state.subscribed else {
                return state.subscribers.filter { $0.id < 0 && $0.channels.contains(channel) }
            }
            return state.subscribers.filter { $0.channels.contains(channel) && !state.cutOff.contains($0.id) }
        }
        queue.async { for receiver in receivers { receiver.events.message(channel, payload) } }
    }

    func claim(from id: Int, _ key: String, _ value: String, _ done: @escaping @Sendable (ClusterClaim) -> Void) {
        let outcome: ClusterClaim = state.withLock { state in
            guard state.up, !state.cutOff.contains(id) else { return .unavailable }
            state.claimsDecided += 1
            if let held = state.claims[key] { return held == value ? .won : .lost }
            state.claims[key] = value
            return .won
        }
        queue.async { done(outcome) }
    }

    func value(from id: Int, _ key: String, _ done: @escaping @Sendable (String?) -> Void) {
        let value: String? = state.withLock { state in
            guard state.up, !state.cutOff.contains(id) else { return nil }
            return state.claims[key]
        }
        queue.async { done(value) }
    }

    func reachable(from id: Int, _ done: @escaping @Sendable (Bool) -> Void) {
        let answers = state.withLock { $0.up && !$0.cutOff.contains(id) }
        queue.async { done(answers) }
    }

    /// Cuts every host's subscription (as Redis does on its pub/sub output buffer limit) while
    /// claims keep working; `resubscribe` brings the subscriptions back.
    public func dropSubscriptions() {
        let subscribers = state.withLock { state in
            state.subscribed = false
            return state.subscribers.filter { !state.cutOff.contains($0.id) }
        }
        queue.async { for subscriber in subscribers { subscriber.events.connected(false) } }
    }

    /// Ends `dropSubscriptions`: every host is subscribed again.
    public func resubscribe() {
        let subscribers = state.withLock { state in
            state.subscribed = true
            return state.subscribers.filter { !state.cutOff.contains($0.id) }
        }
        queue.async { for subscriber in subscribers { subscriber.events.connected(true) } }
    }

    /// Publishes a raw payload as an outsider with write access would (not one of the hosts).
    /// - Parameters:
    ///   - channel: The channel.
    ///   - payload: The payload, as it goes on the wire.
    public func inject(_ channel: String, _ payload: String) { publish(from: 0, channel, payload) }

    /// Sets a claim as an outsider would.
    /// - Parameters:
    ///   - key: The claim's key.
    ///   - value: The value written.
    public func forgeClaim(_ key: String, value: String) { state.withLock { $0.claims[key] = value } }

    /// The claims' keys now, as an outsider with read access sees them.
    public var claimKeys: [String] { state.withLock { Array($0.claims.keys).sorted() } }

    /// Every payload published on a channel from now on, as the hub delivers them.
    /// - Parameter channel: The channel.
    /// - Returns: A recorder to read.
    public func record(_ channel: String) -> InMemoryBackplaneRecorder {
        let recorder = InMemoryBackplaneRecorder()
        subscribe(
            -1, [channel],
            ClusterBackplaneEvents(connected: { _ in }, message: { _, payload in recorder.append(payload) }))
        return recorder
    }

    func remove(_ id: Int) {
        state.withLock { $0.subscribers.removeAll { $0.id == id } }
    }
}

/// One host's end of an ``InMemoryBackplaneHub``.
public final class InMemoryBackplane: ClusterBackplane {
    let hub: InMemoryBackplaneHub
    let id: Int

    init(hub: InMemoryBackplaneHub, id: Int) {
        self.hub = hub
        self.id = id
    }

    /// Subscribes.
    public func start(channels: [String], events: ClusterBackplaneEvents) { hub.subscribe(id, channels, events) }

    /// Publishes to the hub.
    public func publish(_ channel: String, _ payload: String) { hub.publish(from: id, channel, payload) }

    /// Claims in the hub.
    public func claim(
        _ key: String, value: String, ttlSeconds: Double, _ done: @escaping @Sendable (ClusterClaim) -> Void
    ) {
        hub.claim(from: id, key, value, done)
    }

    /// Asks the hub what a claim holds.
    public func claimValue(_ key: String, _ done: @escaping @Sendable (String?) -> Void) {
        hub.value(from: id, key, done)
    }

    /// Whether the hub is up for this host.
    public func reachable(_ done: @escaping @Sendable (Bool) -> Void) { hub.reachable(from: id, done) }

    /// Unsubscribes.
    public func stop() { hub.remove(id) }
}

/// The payloads an ``InMemoryBackplaneHub`` delivered on one channel.
public final class InMemoryBackplaneRecorder: Sendable {
    private let payloads = Locked<[String]>([])

    func append(_ payload: String) { payloads.withLock { $0.append(payload) } }

    /// What was delivered so far, in order.
    public var all: [String] { payloads.withLock { $0 } }
}
