import Foundation
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive

extension HostCore {
    /// Keeps a session without connections for the retention period, then expires it.
    func startRetention(_ session: SessionState) {
        session.retentionTimer?.dispose()
        session.retentionTimer = clock.schedule(after: .seconds(configuration.retentionSeconds)) { [weak self] in
            guard let self else { return }
            perform {
                guard session.alive, session.connections.isEmpty else { return }
                self.expire(session)
            }
        }
    }

    /// Ends a session: its pending modals fail with `sessionExpired` (a group
    /// presentation lives on while another session still shows it).
    func expire(_ session: SessionState) {
        session.alive = false
        // An evicted session's timer would otherwise hold it until its retention ends.
        session.retentionTimer?.dispose()
        session.retentionTimer = nil
        sessions[session.id] = nil
        if session.disconnectOrder != nil { retainedCount -= 1 }
        sessionsByAddress[session.address, default: 1] -= 1
        if sessionsByAddress[session.address] == 0 {
            sessionsByAddress[session.address] = nil
            retainedOrderByAddress[session.address] = nil
        }
        for modalID in session.pendingOrder {
            guard let presentation = session.pending[modalID], !presentation.finished else { continue }
            let others = presentation.targets.filter { $0.session !== session && $0.session.alive }
            if others.isEmpty, !shownElsewhere(presentation) {
                finish(presentation, answeredBy: nil, reason: .expired)
                presentation.callbacks.failed(RemoteModalError.sessionExpired)
            } else {
                presentation.targets.removeAll { $0.session === session }
                session.removePending(modalID)
            }
        }
        metrics.update {
            $0.sessions -= 1
            $0.sessionsExpired += 1
        }
        logger.info("session \(session.shortID) expired")
        clusterMembershipChanged(session)
        session.handle.end()
    }

    /// Fails every pending modal with `hostShutdown`, tells clients (`dismiss`
    /// `shutdown`), ends the sessions and closes every connection with 1001.
    func shutdownOnExecutor() {
        guard !stopped else { return }
        stopped = true
        trimTimer?.dispose()
        for session in sessions.values.sorted(by: { $0.id < $1.id }) {
            for modalID in session.pendingOrder {
                guard let presentation = session.pending[modalID], !presentation.finished else { continue }
                finish(presentation, answeredBy: nil, reason: .shutdown)
                presentation.callbacks.failed(RemoteModalError.hostShutdown)
            }
            session.retentionTimer?.dispose()
            session.alive = false
        }
        let ended = sessions.values.map(\.handle)
        sessions = [:]
        metrics.update { $0.sessions = 0 }
        for handle in ended { handle.end() }
        newSessions.onCompleted()
        uploadBudget.spool.removeAll()
        stopCluster()
    }

    /// Replaces a session's controls list and sends it.
    func setControls(_ sessionID: String, _ items: [ControlItem]) {
        guard let session = sessions[sessionID], session.alive else { return }
        guard session.controls != items else { return }
        session.controls = items
        let itemsJSON: [UInt8]
        if let index = session.controlsEncodings.firstIndex(where: { $0.items == items }) {
            itemsJSON = session.controlsEncodings[index].json
            if index > 0 { session.controlsEncodings.swapAt(0, index) }
        } else {
            let interned = internedControls(items)
            itemsJSON = interned.json
            session.controlsEncodings.insert(interned, at: 0)
            if session.controlsEncodings.count > 2 { session.controlsEncodings.removeLast() }
        }
        send(HostMessage.encodeControls(seq: session.takeSeq(), itemsJSON: itemsJSON), to: session)
    }

    /// A controls list and its encoded `items`, shared by every session that shows the same
    /// list (a host's sessions mostly do: the demo's all show the same six controls, idle or
    /// one of them busy), so that each session keeps references, not copies (the encoding
    /// was 540 bytes of an idle demo session, issue 31). The `controlsInternCapacity` most
    /// recently used lists are kept; a list not among them is encoded again.
    func internedControls(_ items: [ControlItem]) -> (items: [ControlItem], json: [UInt8]) {
        executor.assertInExecutor()
        if let index = controlsIntern.firstIndex(where: { $0.items == items }) {
            let entry = controlsIntern[index]
            if index > 0 { controlsIntern.swapAt(0, index) }
            return entry
        }
        let entry = (items: items, json: HostMessage.controlItemsJSON(items))
        controlsIntern.insert(entry, at: 0)
        if controlsIntern.count > Self.controlsInternCapacity { controlsIntern.removeLast() }
        return entry
    }

    /// How many distinct controls lists `internedControls` keeps.
    static var controlsInternCapacity: Int { 16 }

    /// Sends a status notice to a session.
    func notify(_ sessionID: String, _ text: String, _ level: StatusLevel) {
        guard let session = sessions[sessionID], session.alive else { return }
        let seq = session.takeSeq()
        send(HostMessage.status(seq: seq, level: level, text: text).encodeUTF8(), to: session)
        if text.utf8.count <= RecentStatus.maxTextBytes {
            if session.recentStatuses.count == RecentStatus.kept { session.recentStatuses.removeFirst() }
            session.recentStatuses.append(RecentStatus(seq: seq, level: level, text: text))
        }
        // Statuses may quote what people typed (an e-mail address): never at info.
        logger.debug("session \(session.shortID): status \(level.rawValue) \(logSafe(text))")
    }

    /// The connected sessions in the same group as a session (itself when it has none).
    func connectedSessions(sameGroupAs sessionID: String) -> [Session] {
        guard let session = sessions[sessionID] else { return [] }
        guard let group = session.client.group else { return [session.handle] }
        return sessions.values.filter { $0.client.group == group && !$0.connections.isEmpty }
            .sorted { $0.id < $1.id }.map(\.handle)
    }

    /// The capabilities a session's latest hello advertised.
    func capabilities(of sessionID: String) -> Set<String> {
        sessions[sessionID]?.capabilities ?? []
    }
}
