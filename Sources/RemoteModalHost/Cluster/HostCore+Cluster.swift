import Foundation
import RemoteModalProtocol
import RemoteModalReactive

/// The cluster half of the host: membership heartbeats, presentations copied to other
/// hosts, first-answer-wins claims. Every method runs on the host executor; backplane
/// events hop onto it with `perform`, as transport events do.
extension HostCore {
    // MARK: Lifecycle

    func startCluster() {
        guard let cluster else { return }
        let channels = [ClusterState.broadcastChannel, ClusterState.hostChannel(cluster.hostID)]
        cluster.backplane.start(
            channels: channels,
            events: ClusterBackplaneEvents(
                connected: { [weak self] up in
                    guard let self else { return }
                    perform { self.clusterConnected(up) }
                },
                message: { [weak self] _, payload in
                    guard let self else { return }
                    // Parsing is pure: on the backplane's thread, then hop.
                    guard let message = try? JSONParser().parse(payload) else { return }
                    perform { self.clusterReceived(message) }
                }))
        perform {
            self.metrics.update { $0.cluster.configured = true }
            self.scheduleHeartbeat()
        }
        logger.info("cluster: joining as \(cluster.hostID)")
    }

    func stopCluster() {
        guard let cluster, !cluster.stopped else { return }
        cluster.stopped = true
        cluster.heartbeat?.dispose()
        if cluster.connected {
            publish(ClusterState.broadcastChannel, ["t": "leave", "host": .string(cluster.hostID)])
        }
        cluster.backplane.stop()
        cluster.connected = false
        metrics.update { $0.cluster.connected = false }
    }

    private func scheduleHeartbeat() {
        guard let cluster, !cluster.stopped else { return }
        let period = max(0.05, cluster.configuration.membershipExpirySeconds / 3)
        cluster.heartbeat = clock.schedule(after: .milliseconds(Int(period * 1_000))) { [weak self] in
            guard let self else { return }
            perform {
                self.publishMembers()
                self.sweepPeers()
                self.scheduleHeartbeat()
            }
        }
    }

    private func clusterConnected(_ up: Bool) {
        guard let cluster, !cluster.stopped, cluster.connected != up else { return }
        cluster.connected = up
        metrics.update { $0.cluster.connected = up }
        if up {
            logger.info("cluster: connected as \(cluster.hostID)")
            publish(ClusterState.broadcastChannel, ["t": "join", "host": .string(cluster.hostID)])
            publishMembers()
            return
        }
        logger.warning("cluster: lost the backplane; cluster presentations fail until it returns")
        cluster.peers = [:]
        metrics.update { $0.cluster.members = 0 }
        // Nothing can be decided without the backplane: end what crosses hosts.
        for presentation in Array(cluster.origins.values) + Array(cluster.copies.values) {
            guard !presentation.finished, let link = presentation.cluster else { continue }
            link.remoteHosts = []
            finish(presentation, answeredBy: nil, reason: .disposed)
            if link.isOrigin { presentation.callbacks.failed(RemoteModalError.clusterUnavailable) }
        }
        cluster.origins = [:]
        cluster.copies = [:]
    }

    // MARK: Membership

    /// Publishes this host's members soon (coalesced): call when a session joins, leaves,
    /// or changes its capabilities.
    func clusterMembershipChanged() {
        guard let cluster, !cluster.membershipDirty else { return }
        cluster.membershipDirty = true
        executor.execute {
            cluster.membershipDirty = false
            self.publishMembers()
        }
    }

    private func publishMembers() {
        guard let cluster, cluster.connected, !cluster.stopped else { return }
        let members: [JSONValue] = sessions.values.filter { !$0.connections.isEmpty }.sorted { $0.id < $1.id }
            .map { session in
                [
                    "key": .string(session.memberKey),
                    "kind": .string(session.client.kind),
                    "name": .string(session.client.name),
                    "group": session.client.group.map(JSONValue.string) ?? .null,
                    "capabilities": .array(session.capabilities.sorted().map(JSONValue.string)),
                ]
            }
        publish(
            ClusterState.broadcastChannel,
            ["t": "members", "host": .string(cluster.hostID), "members": .array(members)])
    }

    private func sweepPeers() {
        guard let cluster else { return }
        let deadline = clock.now.addingTimeInterval(-cluster.configuration.membershipExpirySeconds)
        for (hostID, peer) in cluster.peers where peer.lastSeen < deadline {
            logger.warning("cluster: no heartbeat from \(hostID); its members drop out")
            dropPeer(hostID)
        }
    }

    private func dropPeer(_ hostID: String) {
        guard let cluster, cluster.peers.removeValue(forKey: hostID) != nil else { return }
        metrics.update {
            $0.cluster.members = cluster.memberCount
            $0.cluster.peers = cluster.peers.count
        }
        for presentation in Array(cluster.origins.values) {
            guard let link = presentation.cluster, link.remoteHosts.remove(hostID) != nil else { continue }
            endIfNobodyShows(presentation)
        }
        for presentation in Array(cluster.copies.values) where presentation.cluster?.origin == hostID {
            cluster.copies[presentation.cluster!.id] = nil
            finish(presentation, answeredBy: nil, reason: .disposed)
        }
    }

    /// An origin presentation with no copy anywhere any more fails with `missingPresenter`.
    private func endIfNobodyShows(_ presentation: Presentation) {
        guard !presentation.finished, let link = presentation.cluster, link.remoteHosts.isEmpty,
            !presentation.targets.contains(where: { $0.session.alive })
        else { return }
        finish(presentation, answeredBy: nil, reason: .disposed)
        presentation.callbacks.failed(RemoteModalError.missingPresenter)
    }

    /// Whether a presentation is still shown on another host (so a local session's expiry
    /// does not end it).
    func shownElsewhere(_ presentation: Presentation) -> Bool {
        guard let link = presentation.cluster, link.isOrigin else { return false }
        return !link.remoteHosts.isEmpty
    }

    // MARK: Presenting

    /// Where a presenter's modal goes beyond this host: nothing (`[]`), copies on other
    /// hosts, or a refusal. Called while presenting, with the local candidates found.
    func remoteCandidates(for target: Presenter.Target) -> Result<[(String, [ClusterMember])], RemoteModalError> {
        guard let cluster else { return .success([]) }
        switch target {
        case .session(let handle):
            if sessions[handle.id] != nil { return .success([]) }
            guard cluster.connected else { return .failure(.clusterUnavailable) }
            let key =
                handle.id.hasPrefix(ClusterState.remotePrefix)
                ? String(handle.id.dropFirst(ClusterState.remotePrefix.count)) : ClusterState.memberKey(handle.id)
            return .success(cluster.host(ofMember: key).map { [($0.0, [$0.1])] } ?? [])
        case .sessionID(let id):
            if sessions[id] != nil { return .success([]) }
            guard cluster.connected else { return .failure(.clusterUnavailable) }
            return .success(cluster.host(ofMember: ClusterState.memberKey(id)).map { [($0.0, [$0.1])] } ?? [])
        case .group(let name):
            guard cluster.connected else { return .failure(.clusterUnavailable) }
            return .success(cluster.members(ofGroup: name))
        case .current:
            // Resolved to a local session by `Presenter.present` before it gets here.
            return .success([])
        }
    }

    /// Sends copies of a new presentation to the hosts with capable members.
    func presentRemotely(
        _ presentation: Presentation, target: Presenter.Target, on hosts: [(String, [ClusterMember])]
    ) {
        guard let cluster, !hosts.isEmpty else { return }
        let link = ClusterLink(id: cluster.allocateID(), origin: cluster.hostID, isOrigin: true)
        link.remoteHosts = Set(hosts.map(\.0))
        presentation.cluster = link
        cluster.origins[link.id] = presentation
        var modal = JSONWriter()
        presentation.currentDescription.write(to: &modal)
        let parsedModal = (try? JSONParser().parse(modal.output)) ?? .null
        for (hostID, members) in hosts {
            var message: [(String, JSONValue)] = [
                ("t", "present"), ("id", .string(link.id)), ("origin", .string(cluster.hostID)),
                ("modal", parsedModal),
            ]
            switch target {
            case .group(let name): message.append(("group", .string(name)))
            case .session, .sessionID, .current: message.append(("member", .string(members.first?.key ?? "")))
            }
            if let requester = presentation.requesterID {
                message.append(("requester", .string(ClusterState.memberKey(requester))))
            }
            publish(ClusterState.hostChannel(hostID), .object(message))
        }
        logger.debug("cluster: \(link.id) copied to \(hosts.count) other host(s)")
    }

    private func presentCopy(_ message: JSONValue) {
        guard let cluster, let id = message["id"]?.stringValue, let origin = message["origin"]?.stringValue,
            cluster.copies[id] == nil, let modal = message["modal"],
            let description = try? ModalDescription.decode(modal)
        else { return }
        let candidates: [SessionState]
        if let group = message["group"]?.stringValue {
            candidates = sessions.values.filter { $0.client.group == group && !$0.connections.isEmpty }
                .sorted { $0.id < $1.id }
        } else if let key = message["member"]?.stringValue {
            candidates = sessions.values.filter { $0.memberKey == key }
        } else {
            candidates = []
        }
        let requester = message["requester"]?.stringValue
        let limit = configuration.maxPendingModalsPerSession
        let targets = candidates.filter {
            $0.capabilities.contains(description.capability) && $0.pending.count < limit * 16
                && (requester == nil || $0.pendingCount(requestedBy: requester!) < limit)
        }
        guard !targets.isEmpty else {
            publish(
                ClusterState.hostChannel(origin),
                ["t": "withdrawn", "id": .string(id), "host": .string(cluster.hostID)])
            return
        }
        let presentation = Presentation(
            description: description,
            callbacks: PresentationCallbacks(
                answered: { _ in },
                failed: { [weak self] _ in
                    // A copy that ends here on its own (its sessions expired, shutdown): tell the origin.
                    guard let self, let cluster = self.cluster else { return }
                    self.publish(
                        ClusterState.hostChannel(origin),
                        ["t": "withdrawn", "id": .string(id), "host": .string(cluster.hostID)])
                }),
            rules: [], presentedAt: clock.now, uploadBudget: uploadBudget)
        presentation.requesterID = requester
        presentation.cluster = ClusterLink(id: id, origin: origin, isOrigin: false)
        cluster.copies[id] = presentation
        show(presentation, on: targets)
    }

    // MARK: Answers

    /// A local session answered a presentation that is shown on several hosts: claim it in
    /// the backplane, and only the first claim anywhere is accepted.
    func clusterAnswer(
        _ presentation: Presentation, by session: SessionState, decision: AnswerDecision, wire: ClusterAnswerWire
    ) {
        guard let cluster, let link = presentation.cluster, !presentation.claiming else { return }
        presentation.claiming = true
        cluster.backplane.claim(
            ClusterState.claimKey(link.id), owner: cluster.hostID, ttlSeconds: cluster.configuration.claimTTLSeconds
        ) { [weak self] outcome in
            guard let self else { return }
            perform { self.claimed(outcome, presentation, by: session, decision: decision, wire: wire) }
        }
    }

    private func claimed(
        _ outcome: ClusterClaim, _ presentation: Presentation, by session: SessionState, decision: AnswerDecision,
        wire: ClusterAnswerWire
    ) {
        presentation.claiming = false
        guard let cluster, let link = presentation.cluster, !presentation.finished else { return }
        metrics.update { $0.cluster.claims[outcome, default: 0] += 1 }
        switch outcome {
        case .won:
            finish(presentation, answeredBy: session, reason: .resolved)
            metrics.resolved(after: clock.now.timeIntervalSince(presentation.presentedAt))
            if link.isOrigin {
                deliver(decision, from: session.handle, to: presentation)
            } else {
                var message: [(String, JSONValue)] = [
                    ("t", "answer"), ("id", .string(link.id)), ("host", .string(cluster.hostID)),
                    ("member", .string(session.memberKey)), ("kind", .string(session.client.kind)),
                    ("name", .string(session.client.name)),
                    ("group", session.client.group.map(JSONValue.string) ?? .null),
                ]
                switch wire {
                case .result(let value): message.append(("result", value))
                case .failure(let code, let text):
                    message.append(("failure", .string(code.rawValue)))
                    message.append(("message", text.map(JSONValue.string) ?? .null))
                }
                publish(ClusterState.hostChannel(link.origin), .object(message))
            }
        case .lost:
            // Another host's session was first: its dismiss (`superseded`) is on its way.
            break
        case .unavailable:
            finish(presentation, answeredBy: nil, reason: .disposed)
            if link.isOrigin { presentation.callbacks.failed(RemoteModalError.clusterUnavailable) }
        }
    }

    private func deliver(_ decision: AnswerDecision, from session: Session, to presentation: Presentation) {
        switch decision {
        case .success(let answer, let files):
            // As for local answers: the answer's flow presents, by default, to the session that answered.
            Presenter.withCurrentSession(session) {
                presentation.callbacks.answered(AcceptedAnswer(answer: answer, session: session, files: files))
            }
        case .failure(let code, let text):
            presentation.callbacks.failed(RemoteModalError(code, text))
        }
    }

    /// Another host's session won a presentation this host asked for.
    private func remoteAnswer(_ message: JSONValue) {
        guard let cluster, let id = message["id"]?.stringValue, let presentation = cluster.origins[id],
            !presentation.finished, let link = presentation.cluster, let host = message["host"]?.stringValue,
            let key = message["member"]?.stringValue
        else { return }
        link.remoteHosts.remove(host)
        let client = ClientDescription(
            kind: message["kind"]?.stringValue ?? "", name: message["name"]?.stringValue ?? "",
            group: message["group"]?.stringValue)
        let decision: AnswerDecision
        if let code = message["failure"]?.stringValue.flatMap(FailureCode.init(rawValue:)) {
            decision = .failure(code, message["message"]?.stringValue)
        } else {
            do {
                decision = try decideResult(message["result"] ?? .null, for: presentation)
            } catch {
                // The answering host judged the result on its copy; the origin's own check
                // (a custom modal's decoding) refused it. It cannot be asked again.
                finish(presentation, answeredBy: nil, reason: .superseded)
                presentation.callbacks.failed(RemoteModalError.undecodableResult(error.message))
                return
            }
        }
        // Every local copy is superseded; the finish hook tells the other hosts.
        finish(presentation, answeredBy: nil, reason: .superseded)
        metrics.resolved(after: clock.now.timeIntervalSince(presentation.presentedAt))
        deliver(
            decision, from: Session(id: ClusterState.remotePrefix + key, client: client, core: self), to: presentation)
    }

    /// Called by `finish` for a presentation with a cluster link: at the origin, the other
    /// hosts' copies are dismissed too.
    func clusterFinished(_ presentation: Presentation, answeredBy: SessionState?, reason: DismissReason) {
        guard let cluster, let link = presentation.cluster else { return }
        guard link.isOrigin else {
            cluster.copies[link.id] = nil
            return
        }
        cluster.origins[link.id] = nil
        let remoteReason: DismissReason = answeredBy != nil ? .superseded : reason
        for host in link.remoteHosts.sorted() {
            publish(
                ClusterState.hostChannel(host),
                ["t": "dismiss", "id": .string(link.id), "reason": .string(remoteReason.rawValue)])
        }
        link.remoteHosts = []
    }

    // MARK: Messages

    private func clusterReceived(_ message: JSONValue) {
        guard let cluster, !cluster.stopped, let type = message["t"]?.stringValue else { return }
        metrics.update { $0.cluster.received += 1 }
        let host = message["host"]?.stringValue
        switch type {
        case "members":
            guard let host, host != cluster.hostID, let list = message["members"]?.arrayValue else { return }
            let members = list.compactMap { entry -> ClusterMember? in
                guard let key = entry["key"]?.stringValue else { return nil }
                return ClusterMember(
                    key: key,
                    client: ClientDescription(
                        kind: entry["kind"]?.stringValue ?? "", name: entry["name"]?.stringValue ?? "",
                        group: entry["group"]?.stringValue),
                    capabilities: Set(entry["capabilities"]?.arrayValue?.compactMap(\.stringValue) ?? []))
            }
            cluster.peers[host] = ClusterPeer(members: members, lastSeen: clock.now)
            metrics.update {
                $0.cluster.members = cluster.memberCount
                $0.cluster.peers = cluster.peers.count
            }
        case "join":
            guard let host, host != cluster.hostID else { return }
            publishMembers()
        case "leave":
            guard let host, host != cluster.hostID else { return }
            dropPeer(host)
        case "present":
            presentCopy(message)
        case "answer":
            remoteAnswer(message)
        case "dismiss":
            guard let id = message["id"]?.stringValue, let copy = cluster.copies[id],
                let reason = message["reason"]?.stringValue.flatMap(DismissReason.init(rawValue:))
            else { return }
            finish(copy, answeredBy: nil, reason: reason)
        case "withdrawn":
            guard let id = message["id"]?.stringValue, let presentation = cluster.origins[id], let host,
                presentation.cluster?.remoteHosts.remove(host) != nil
            else { return }
            endIfNobodyShows(presentation)
        default:
            break
        }
    }

    private func publish(_ channel: String, _ message: JSONValue) {
        guard let cluster, cluster.connected else { return }
        cluster.backplane.publish(channel, message.jsonText)
        metrics.update { $0.cluster.sent += 1 }
    }
}
