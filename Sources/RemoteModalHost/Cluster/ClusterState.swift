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

/// Another host of the cluster and when it was last heard of.
struct ClusterPeer {
    var members: [ClusterMember]
    var lastSeen: Date
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
    var membershipDirty = false
    var stopped = false

    init(configuration: ClusterConfiguration) {
        self.configuration = configuration
    }

    var hostID: String { configuration.hostID }
    var backplane: any ClusterBackplane { configuration.backplane }

    static let broadcastChannel = "remote-modal:all"
    static func hostChannel(_ hostID: String) -> String { "remote-modal:host:" + hostID }
    static func claimKey(_ presentationID: String) -> String { "remote-modal:answered:" + presentationID }

    /// The one-way member key of a session id.
    static func memberKey(_ sessionID: String) -> String {
        String(SHA256.hex(("remote-modal member " + sessionID).utf8).prefix(32))
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
            if let member = peer.members.first(where: { $0.key == key }) { return (hostID, member) }
        }
        return nil
    }

    /// Other hosts' members of a group, by host.
    func members(ofGroup group: String) -> [(String, [ClusterMember])] {
        peers.sorted { $0.key < $1.key }.compactMap { hostID, peer in
            let members = peer.members.filter { $0.client.group == group }
            return members.isEmpty ? nil : (hostID, members)
        }
    }

    var memberCount: Int { peers.values.reduce(0) { $0 + $1.members.count } }
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
