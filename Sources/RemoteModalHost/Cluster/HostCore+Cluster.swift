import Foundation
import RemoteModalLogging
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
                message: { [weak self] channel, payload in
                    guard let self else { return }
                    // Checking and parsing are pure: on the backplane's thread, then hop.
                    let opened = Self.openClusterMessage(
                        payload, channel: channel, configuration: cluster.configuration)
                    perform {
                        switch opened {
                        case .success(let message): self.clusterReceived(message)
                        case .failure(let reason): self.clusterRejected(reason, channel: channel)
                        }
                    }
                },
                failed: { [weak self] reason in
                    guard let self else { return }
                    perform { self.clusterBackplaneFailed(reason) }
                }))
        perform {
            self.metrics.update { $0.cluster.configured = true }
            self.scheduleHeartbeat()
        }
        if cluster.configuration.key == nil {
            logger.warning(
                "cluster: messages are neither signed nor checked (no cluster key): anyone who can write to the"
                    + " backplane speaks for every host; for local tests only")
        }
        logger.info("cluster: joining as \(cluster.hostID)")
    }

    /// Logs why the backplane failed: a new reason at once, the same one at most every 30 s.
    private func clusterBackplaneFailed(_ reason: String) {
        guard let cluster, !cluster.stopped else { return }
        let now = clock.now
        if reason == cluster.lastFailure, let last = cluster.lastFailureLoggedAt, now.timeIntervalSince(last) < 30 {
            return
        }
        cluster.lastFailure = reason
        cluster.lastFailureLoggedAt = now
        logger.warning("cluster: backplane: \(logSafe(reason))")
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
                self.publishAlive()
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
            let again = cluster.everConnected
            let waited = cluster.resubscribing
            cluster.everConnected = true
            cluster.resubscribing = nil
            cluster.grace?.dispose()
            cluster.grace = nil
            publish(
                ClusterState.broadcastChannel,
                ["t": "join", "host": .string(cluster.hostID), "seq": .number(Double(cluster.seq))])
            flushMembership()
            guard again else {
                logger.info("cluster: connected as \(cluster.hostID)")
                return
            }
            metrics.update { $0.cluster.resubscribed += 1 }
            // Peers kept through the loss were not heard meanwhile: they get a fresh expiry, and
            // each sends its snapshot (the join asks for it). What crosses hosts and was
            // decided meanwhile is read back from the claims.
            for hostID in cluster.peers.keys { cluster.peers[hostID]?.lastSeen = clock.now }
            let pending = cluster.origins.count + cluster.copies.count
            let outage = waited.map { String(format: " after %.1f s", clock.now.timeIntervalSince($0)) } ?? ""
            logger.warning(
                "cluster: subscribed again as \(cluster.hostID)\(outage); asked the other hosts for their members,"
                    + " re-reading the claims of \(pending) pending cluster presentation(s)")
            recoverPending()
            return
        }
        cluster.losses += 1
        let loss = cluster.losses
        // Until the backplane says it no longer answers, commands are still sent (an answer
        // given now is claimed, and its message published).
        cluster.resubscribing = clock.now
        logger.warning("cluster: lost the backplane subscription; re-subscribing with backoff")
        cluster.backplane.reachable { [weak self] answers in
            guard let self else { return }
            perform { self.subscriptionLost(loss, backplaneAnswers: answers) }
        }
    }

    /// The backplane said whether it still answers commands after subscription loss `loss`.
    /// It answers (Redis cut the subscription, as for one huge `PUBLISH`): what crosses hosts
    /// waits up to `resubscribeGraceSeconds` for the subscription to return. It does not: it
    /// all ends now, as before.
    private func subscriptionLost(_ loss: Int, backplaneAnswers: Bool) {
        guard let cluster, !cluster.stopped, !cluster.connected, cluster.losses == loss else { return }
        guard backplaneAnswers else {
            loseBackplane()
            return
        }
        let grace = cluster.configuration.resubscribeGraceSeconds
        logger.warning(
            "cluster: Redis still answers commands (it cut the subscription, for example on its pub/sub output"
                + " buffer limit); \(cluster.origins.count + cluster.copies.count) pending cluster"
                + " presentation(s) wait up to \(Int(grace)) s for the subscription to return")
        cluster.grace?.dispose()
        cluster.grace = clock.schedule(after: .milliseconds(Int(grace * 1_000))) { [weak self] in
            guard let self else { return }
            perform {
                guard let cluster = self.cluster, !cluster.connected, cluster.losses == loss else { return }
                self.loseBackplane()
            }
        }
    }

    /// Without the backplane nothing can be decided: ends what crosses hosts.
    private func loseBackplane() {
        guard let cluster else { return }
        cluster.resubscribing = nil
        cluster.grace?.dispose()
        cluster.grace = nil
        logger.warning("cluster: lost the backplane; cluster presentations fail until it returns")
        cluster.peers = [:]
        metrics.update { $0.cluster.members = 0 }
        for presentation in Array(cluster.origins.values) + Array(cluster.copies.values) {
            guard !presentation.finished, let link = presentation.cluster else { continue }
            link.remoteHosts = []
            finish(presentation, answeredBy: nil, reason: .disposed)
            if link.isOrigin { presentation.callbacks.failed(RemoteModalError.clusterUnavailable) }
        }
        cluster.origins = [:]
        cluster.copies = [:]
    }

    /// After a re-subscription: an origin presentation whose claim another host won meanwhile
    /// takes the answer the claim records; a copy whose claim another host won is superseded;
    /// a copy still open asks its origin whether the presentation still is (`check`).
    private func recoverPending() {
        guard let cluster else { return }
        for (id, presentation) in cluster.origins where !presentation.finished {
            readClaim(id) { [weak self] claim in
                guard let self, let claim, claim["host"]?.stringValue != self.cluster?.hostID else { return }
                self.metrics.update { $0.cluster.recovered += 1 }
                self.claimedRemoteAnswer(claim, presentation)
            }
        }
        for (id, copy) in cluster.copies where !copy.finished {
            guard let origin = copy.cluster?.origin else { continue }
            readClaim(id) { [weak self] claim in
                guard let self, let cluster = self.cluster, !copy.finished, !copy.claiming else { return }
                if let claim {
                    guard claim["host"]?.stringValue != cluster.hostID else { return }
                    self.metrics.update { $0.cluster.recovered += 1 }
                    self.finish(copy, answeredBy: nil, reason: .superseded)
                } else {
                    self.publish(
                        ClusterState.hostChannel(origin),
                        ["t": "check", "id": .string(id), "host": .string(cluster.hostID)])
                }
            }
        }
    }

    /// Reads a presentation's claim and hands over what it records, verified (`nil`: no claim,
    /// or one that does not verify, which is void), on the executor.
    private func readClaim(_ id: String, _ done: @escaping @Sendable (JSONValue?) -> Void) {
        guard let cluster else { return }
        let key = cluster.claimKey(id)
        cluster.backplane.claimValue(key) { [weak self] value in
            guard let self else { return }
            perform {
                guard let cluster = self.cluster else { return }
                let claim = value.flatMap { cluster.openClaim($0, key: key, presentationID: id) }
                if value != nil, claim == nil {
                    self.logger.warning("cluster: the claim of \(id) does not verify under the cluster key; void")
                    self.clusterRejected(.badSignature, channel: "claim")
                }
                done(claim)
            }
        }
    }

    // MARK: Membership

    /// Publishes a session's membership soon, as a delta (joined or left), within the limits:
    /// call when a session joins, leaves, or changes its capabilities.
    func clusterMembershipChanged(_ session: SessionState) {
        guard let cluster, !cluster.stopped else { return }
        cluster.dirty[session.memberKey] = session
        guard !cluster.flushQueued else { return }
        cluster.flushQueued = true
        executor.execute {
            cluster.flushQueued = false
            self.flushMembership()
        }
    }

    /// Publishes what changed since the last delta, as one or more `delta` messages. A session
    /// goes out at most once per `memberUpdateIntervalSeconds`, and a client address's
    /// sessions spend at most its byte budget: what is held back waits for a later flush,
    /// where a join and a leave in between cancel out.
    func flushMembership() {
        guard let cluster, cluster.connected, !cluster.stopped, !cluster.dirty.isEmpty else { return }
        let configuration = cluster.configuration
        let now = clock.now
        let seconds = now.timeIntervalSince1970
        var joined: [ClusterMember] = []
        var left: [String] = []
        var heldBack = false
        for (key, session) in cluster.dirty.sorted(by: { $0.key < $1.key }) {
            let current = ClusterState.member(of: session)
            guard current != cluster.published[key] else {
                cluster.dirty[key] = nil
                continue
            }
            if let last = cluster.publishedAt[key],
                now.timeIntervalSince(last) < configuration.memberUpdateIntervalSeconds
            {
                heldBack = true
                continue
            }
            let cost = current?.wireBytes ?? (key.utf8.count + 8)
            var budget =
                cluster.addressBudgets[session.address]
                ?? ByteBudget(
                    rate: configuration.memberBytesPerSecondPerAddress,
                    burst: configuration.memberBurstBytesPerAddress, now: seconds)
            let affordable = budget.spend(cost, now: seconds)
            cluster.addressBudgets[session.address] = budget
            guard affordable else {
                heldBack = true
                continue
            }
            cluster.dirty[key] = nil
            cluster.publishedAt[key] = now
            cluster.published[key] = current
            if let current { joined.append(current) } else { left.append(key) }
        }
        // Budgets that are full again and publication times past the interval are forgotten.
        for (address, var budget) in cluster.addressBudgets {
            if budget.refill(now: seconds) { cluster.addressBudgets[address] = nil }
        }
        if cluster.publishedAt.count > 1_024 {
            cluster.publishedAt = cluster.publishedAt.filter {
                now.timeIntervalSince($0.value) < configuration.memberUpdateIntervalSeconds
            }
        }
        publishDeltas(joined: joined, left: left)
        if heldBack { scheduleMembershipRetry() }
    }

    private func publishDeltas(joined: [ClusterMember], left: [String]) {
        guard let cluster else { return }
        let perMessage = 64
        var joinedRest = joined[...]
        var leftRest = left[...]
        while !joinedRest.isEmpty || !leftRest.isEmpty {
            let joinedPart = joinedRest.prefix(perMessage)
            joinedRest = joinedRest.dropFirst(joinedPart.count)
            let leftPart = leftRest.prefix(perMessage * 4)
            leftRest = leftRest.dropFirst(leftPart.count)
            cluster.seq += 1
            publish(
                ClusterState.broadcastChannel,
                [
                    "t": "delta", "host": .string(cluster.hostID), "seq": .number(Double(cluster.seq)),
                    "joined": .array(joinedPart.map(\.json)), "left": .array(leftPart.map(JSONValue.string)),
                ])
        }
    }

    private func scheduleMembershipRetry() {
        guard let cluster, cluster.retry == nil else { return }
        let delay = max(0.05, min(1, cluster.configuration.memberUpdateIntervalSeconds))
        cluster.retry = clock.schedule(after: .milliseconds(Int(delay * 1_000))) { [weak self] in
            guard let self else { return }
            perform {
                self.cluster?.retry = nil
                self.flushMembership()
            }
        }
    }

    /// The heartbeat: this host is alive and its membership is at `seq` (a peer that has
    /// another number missed a delta and asks for a snapshot).
    private func publishAlive() {
        guard let cluster, cluster.connected || cluster.resubscribing != nil, !cluster.stopped else { return }
        publish(
            ClusterState.broadcastChannel,
            ["t": "alive", "host": .string(cluster.hostID), "seq": .number(Double(cluster.seq))])
    }

    /// Everything this host has told the others, to one host that asked (`sync`): it joined,
    /// or it missed a delta. At most once per half heartbeat period per asking host.
    private func sendSnapshot(to hostID: String) {
        guard let cluster, cluster.connected, !cluster.stopped else { return }
        let now = clock.now
        let period = max(0.05, cluster.configuration.membershipExpirySeconds / 3)
        if let last = cluster.snapshotSentAt[hostID], now.timeIntervalSince(last) < period / 2 { return }
        cluster.snapshotSentAt[hostID] = now
        let members = cluster.published.values.sorted { $0.key < $1.key }.map(\.json)
        publish(
            ClusterState.hostChannel(hostID),
            [
                "t": "snapshot", "host": .string(cluster.hostID), "seq": .number(Double(cluster.seq)),
                "members": .array(members),
            ])
    }

    /// Asks a peer for its snapshot (at most once per heartbeat period, unless `force`d by
    /// its joining).
    private func requestSync(from hostID: String, force: Bool = false) {
        guard let cluster, cluster.connected else { return }
        let now = clock.now
        let period = max(0.05, cluster.configuration.membershipExpirySeconds / 3)
        var peer = cluster.peers[hostID] ?? ClusterPeer(lastSeen: now)
        peer.synced = false
        if !force, let last = peer.syncRequestedAt, now.timeIntervalSince(last) < period {
            cluster.peers[hostID] = peer
            return
        }
        peer.syncRequestedAt = now
        cluster.peers[hostID] = peer
        publish(ClusterState.hostChannel(hostID), ["t": "sync", "host": .string(cluster.hostID)])
    }

    private func peerMembershipChanged() {
        guard let cluster else { return }
        metrics.update {
            $0.cluster.members = cluster.memberCount
            $0.cluster.peers = cluster.peers.count
        }
    }

    private func receivedDelta(_ message: JSONValue, from host: String) {
        guard let cluster, let seq = message["seq"]?.intValue else { return }
        guard var peer = cluster.peers[host], peer.synced, seq == peer.seq + 1 else {
            if let peer = cluster.peers[host], peer.synced, seq <= peer.seq { return }  // seen already
            requestSync(from: host)
            return
        }
        peer.seq = seq
        peer.lastSeen = clock.now
        for entry in message["left"]?.arrayValue ?? [] {
            if let key = entry.stringValue { peer.members[key] = nil }
        }
        for entry in message["joined"]?.arrayValue ?? [] {
            if let member = ClusterMember(entry) { peer.members[member.key] = member }
        }
        cluster.peers[host] = peer
        peerMembershipChanged()
    }

    private func receivedSnapshot(_ message: JSONValue, from host: String) {
        guard let cluster, let seq = message["seq"]?.intValue, let list = message["members"]?.arrayValue else { return }
        var peer = cluster.peers[host] ?? ClusterPeer(lastSeen: clock.now)
        peer.members = Dictionary(list.compactMap(ClusterMember.init).map { ($0.key, $0) }) { _, last in last }
        peer.seq = seq
        peer.synced = true
        peer.lastSeen = clock.now
        cluster.peers[host] = peer
        peerMembershipChanged()
    }

    private func receivedAlive(_ message: JSONValue, from host: String) {
        guard let cluster, let seq = message["seq"]?.intValue else { return }
        guard var peer = cluster.peers[host], peer.synced, peer.seq == seq else {
            requestSync(from: host)
            cluster.peers[host]?.lastSeen = clock.now
            return
        }
        peer.lastSeen = clock.now
        cluster.peers[host] = peer
    }

    private func sweepPeers() {
        // Peers are not heard while the subscription is lost: they are judged once it is back.
        guard let cluster, cluster.connected else { return }
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
            // The actions disabled here for a session (the requester's Approve) go with its
            // token, so that a session of the same token on another host is the requester
            // there too (issue 33, round five: it approved its own request from another host).
            let byToken = disabledByToken(presentation)
            if !byToken.isEmpty {
                message.append(("disabledForTokens", .object(byToken)))
                // And why, as the origin says it on its own copy (round six: the twin's
                // disabled Approve had no words on another host).
                if let explanation = presentation.disabledExplanation {
                    message.append(("disabledExplanation", .string(explanation)))
                }
            }
            publish(ClusterState.hostChannel(hostID), .object(message))
        }
        logger.debug("cluster: \(link.id) copied to \(hosts.count) other host(s)")
    }

    /// The longest `disabledExplanation` a copy from the backplane may carry (a longer one is
    /// left out: the actions stay disabled, without the words).
    static var maxCopiedExplanationBytes: Int { 512 }

    /// The backplane name of the token that admitted a session (`nil` without one).
    func tokenKey(of session: SessionState) -> String? {
        guard let grant = session.grant else { return nil }
        if grant == -1 { return configuration.accessToken.map(ClusterState.tokenKey) }
        return configuration.tokenGrants.indices.contains(grant)
            ? ClusterState.tokenKey(configuration.tokenGrants[grant].token) : nil
    }

    /// The actions disabled for sessions of this host, by the backplane name of their token.
    private func disabledByToken(_ presentation: Presentation) -> [(String, JSONValue)] {
        var byToken: [String: Set<Int>] = [:]
        for (id, indices) in presentation.disabledActions {
            guard let session = sessions[id], let key = tokenKey(of: session) else { continue }
            byToken[key, default: []].formUnion(indices)
        }
        return byToken.sorted { $0.key < $1.key }.map {
            ($0.key, .array($0.value.sorted().map { .number(Double($0)) }))
        }
    }

    private func presentCopy(_ message: JSONValue) {
        guard let cluster, let id = message["id"]?.stringValue, let origin = message["origin"]?.stringValue,
            cluster.copies[id] == nil, let modal = message["modal"]
        else { return }
        // The checks a local presentation passes: a kind the protocol knows, decoded with its
        // sizes; and never a kind that stays on its host (pickers, web authentication: a
        // copy of one can only be forged, and a sign-in URL from the backplane is nobody's).
        guard id.hasPrefix(origin + "."), origin != cluster.hostID, !cluster.recentCopies.contains(id),
            let description = try? ModalDescription.decode(modal), !description.staysOnHost
        else {
            clusterRejected(.refused, channel: ClusterState.hostChannel(cluster.hostID))
            return
        }
        cluster.recentCopies.insert(id)
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
        if case .object(let byToken)? = message["disabledForTokens"] {
            for target in targets {
                guard let key = tokenKey(of: target), let indices = byToken.first(where: { $0.0 == key })?.1.arrayValue
                else { continue }
                let actions = Set(indices.compactMap { $0.numberValue.flatMap { Int(exactly: $0) } }.filter { $0 >= 0 })
                presentation.disabledActions[target.id, default: []].formUnion(actions)
            }
            if let explanation = message["disabledExplanation"]?.stringValue,
                explanation.utf8.count <= Self.maxCopiedExplanationBytes
            {
                presentation.disabledExplanation = explanation
            }
        }
        presentation.cluster = ClusterLink(id: id, origin: origin, isOrigin: false)
        cluster.copies[id] = presentation
        show(presentation, on: targets)
    }

    // MARK: Answers

    /// A local session answered a presentation that is shown on several hosts: claim it in
    /// the backplane, and only the first claim anywhere is accepted. The claim's value is
    /// the answer itself, signed (who answered, and what), so that the origin acts on what
    /// the claim says, never on a message alone, and can read it again after a lost
    /// subscription.
    func clusterAnswer(
        _ presentation: Presentation, by session: SessionState, decision: AnswerDecision, wire: ClusterAnswerWire
    ) {
        guard let cluster, let link = presentation.cluster, !presentation.claiming else { return }
        presentation.claiming = true
        var claim: [(String, JSONValue)] = [
            ("id", .string(link.id)), ("host", .string(cluster.hostID)), ("member", .string(session.memberKey)),
            ("kind", .string(session.client.kind)), ("name", .string(session.client.name)),
            ("group", session.client.group.map(JSONValue.string) ?? .null),
        ]
        switch wire {
        case .result(let value): claim.append(("result", value))
        case .failure(let code, let text):
            claim.append(("failure", .string(code.rawValue)))
            claim.append(("message", text.map(JSONValue.string) ?? .null))
        }
        let key = cluster.claimKey(link.id)
        cluster.backplane.claim(
            key, value: cluster.sealClaim(.object(claim), key: key), ttlSeconds: cluster.configuration.claimTTLSeconds
        ) { [weak self] outcome in
            guard let self else { return }
            perform { self.claimed(outcome, presentation, by: session, decision: decision) }
        }
    }

    private func claimed(
        _ outcome: ClusterClaim, _ presentation: Presentation, by session: SessionState, decision: AnswerDecision
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
                // The answer is in the claim: the message only tells the origin to read it.
                publish(
                    ClusterState.hostChannel(link.origin),
                    ["t": "answer", "id": .string(link.id), "host": .string(cluster.hostID)])
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
    /// It acts only through the first-answer claim: the origin reads the presentation's claim,
    /// and only a claim that verifies under the cluster key, held by a host the copy was sent
    /// to, resolves it, with the answer the claim records (a message alone, forged or
    /// replayed, resolves nothing).
    private func remoteAnswer(_ message: JSONValue) {
        guard let cluster, let id = message["id"]?.stringValue, let presentation = cluster.origins[id],
            !presentation.finished, let link = presentation.cluster, let host = message["host"]?.stringValue,
            link.remoteHosts.contains(host)
        else {
            if let cluster { clusterRejected(.refused, channel: ClusterState.hostChannel(cluster.hostID)) }
            return
        }
        readClaim(id) { [weak self] claim in
            guard let self, let cluster = self.cluster else { return }
            guard let claim, claim["host"]?.stringValue == host else {
                self.logger.warning("cluster: an answer for \(id) from \(logSafe(host)) without its claim; ignored")
                self.clusterRejected(.refused, channel: ClusterState.hostChannel(cluster.hostID))
                return
            }
            self.claimedRemoteAnswer(claim, presentation)
        }
    }

    /// Resolves an origin presentation with the answer a verified claim records (`message`).
    private func claimedRemoteAnswer(_ message: JSONValue, _ presentation: Presentation) {
        guard !presentation.finished, let link = presentation.cluster, let host = message["host"]?.stringValue,
            link.remoteHosts.contains(host), let key = message["member"]?.stringValue
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
        case "delta":
            guard let host, host != cluster.hostID else { return }
            receivedDelta(message, from: host)
        case "alive":
            guard let host, host != cluster.hostID else { return }
            receivedAlive(message, from: host)
        case "snapshot":
            guard let host, host != cluster.hostID else { return }
            receivedSnapshot(message, from: host)
        case "sync":
            guard let host, host != cluster.hostID else { return }
            sendSnapshot(to: host)
        case "join":
            // A host (re)joined: it learns this host's members, and this host learns its.
            guard let host, host != cluster.hostID else { return }
            // Answered once per join: a replay carries the stamp of one answered already (a
            // signed message cannot be given a new one), and each answer is a whole snapshot.
            let stamp = message["ts"]?.numberValue ?? 0
            if let last = cluster.joinStamps[host], stamp <= last { return }
            // Stamps past the message age are refused as stale anyway: not kept.
            let oldest = (Date().timeIntervalSince1970 - cluster.configuration.maxMessageAgeSeconds) * 1_000
            cluster.joinStamps = cluster.joinStamps.filter { $0.value >= oldest }
            cluster.joinStamps[host] = stamp
            cluster.snapshotSentAt[host] = nil
            sendSnapshot(to: host)
            requestSync(from: host, force: true)
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
        case "check":
            // A host that re-subscribed asks whether a presentation it shows a copy of still is:
            // one this host no longer has is dismissed there.
            guard let id = message["id"]?.stringValue, id.hasPrefix(cluster.hostID + "."), let host,
                host != cluster.hostID, cluster.origins[id] == nil
            else { return }
            publish(ClusterState.hostChannel(host), ["t": "dismiss", "id": .string(id), "reason": "disposed"])
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
        // While re-subscribing, commands still reach Redis: answers, withdrawals and heartbeats
        // go out (the peers keep this host), what comes back is read from the claims.
        guard let cluster, cluster.connected || cluster.resubscribing != nil else { return }
        var stamped = message
        if case .object(var pairs) = message {
            pairs.append(("ts", .number((Date().timeIntervalSince1970 * 1_000).rounded())))
            stamped = .object(pairs)
        }
        let body = stamped.jsonText
        cluster.backplane.publish(channel, cluster.configuration.key.map { $0.sign(body, channel: channel) } ?? body)
        metrics.update { $0.cluster.sent += 1 }
    }

    /// The largest backplane message a host sends but a snapshot (a modal, an answer, a delta).
    static let maxClusterMessageBytes = 1 << 20
    /// The largest snapshot (every member of a host: 10,000 sessions at their largest).
    static let maxClusterSnapshotBytes = 64 << 20

    /// A payload from the backplane checked (signature, age, size) and parsed, or why it is
    /// dropped. Pure: runs on the backplane's thread.
    static func openClusterMessage(
        _ payload: String, channel: String, configuration: ClusterConfiguration
    ) -> Result<JSONValue, ClusterRejection> {
        guard payload.utf8.count <= maxClusterSnapshotBytes else { return .failure(.malformed) }
        let body: String
        if let key = configuration.key {
            switch key.open(payload, channel: channel) {
            case .success(let opened): body = String(opened)
            case .failure(let reason): return .failure(reason)
            }
        } else {
            body = payload
        }
        guard let message = try? JSONParser().parse(body), message["t"]?.stringValue != nil else {
            return .failure(.malformed)
        }
        if body.utf8.count > maxClusterMessageBytes, message["t"]?.stringValue != "snapshot" {
            return .failure(.malformed)
        }
        if configuration.key != nil {
            guard let stamp = message["ts"]?.numberValue,
                abs(Date().timeIntervalSince1970 - stamp / 1_000) <= configuration.maxMessageAgeSeconds
            else { return .failure(.stale) }
        }
        return .success(message)
    }

    /// Counts a dropped message and says so in the log (the counts, at most once a second;
    /// never the payload, which may carry a forged secret, nor the key).
    func clusterRejected(_ reason: ClusterRejection, channel: String) {
        guard let cluster, !cluster.stopped else { return }
        cluster.rejected[reason, default: 0] += 1
        metrics.update { $0.cluster.rejected[reason.rawValue, default: 0] += 1 }
        let now = clock.now
        if let last = cluster.rejectionLoggedAt, now.timeIntervalSince(last) < 1 { return }
        cluster.rejectionLoggedAt = now
        let counts = ClusterRejection.allCases.compactMap { reason in
            cluster.rejected[reason].map { "\(reason.rawValue) \($0)" }
        }
        logger.warning(
            "cluster: dropped a backplane message on \(logSafe(channel)) (\(reason.rawValue)); dropped so far: "
                + counts.joined(separator: ", "))
    }
}
