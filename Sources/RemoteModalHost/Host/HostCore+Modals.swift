import Foundation
import RemoteModalProtocol
import RemoteModalReactive

/// Links a subscription to its presentation, which is created later on the executor,
/// and is the subscription's disposable: disposing it dismisses the presentation
/// (`disposed`) if it is still pending. One object per modal, where a closure and an
/// anonymous disposable were two more.
///
/// `@unchecked Sendable` invariant: `presentation` and `disposed` are read and written
/// on the executor only; `core` is immutable.
final class PresentationToken: Disposable, @unchecked Sendable {
    let core: HostCore
    var presentation: Presentation?
    var disposed = false

    init(core: HostCore) {
        self.core = core
    }

    /// Dismisses the presentation, now on the executor or queued to it from elsewhere.
    func dispose() {
        if core.executor.inExecutor { dismiss() } else { core.executor.execute { self.dismiss() } }
    }

    private func dismiss() {
        disposed = true
        guard let presentation, !presentation.finished else { return }
        core.finish(presentation, answeredBy: nil, reason: .disposed)
    }
}

/// What a client's answer amounts to once accepted.
enum AnswerDecision {
    case success(ModalAnswer, [PickedFile])
    case failure(FailureCode, String?)
}

extension HostCore {
    /// Presents a modal; the returned disposable dismisses it (`disposed`) if still pending.
    /// Callable from any thread.
    func present(
        _ presenter: Presenter, _ description: ModalDescription, rules: [EnabledRule?], timeout: Duration?,
        token: PresentationToken? = nil, callbacks: PresentationCallbacks
    ) -> any Disposable {
        let token = token ?? PresentationToken(core: self)
        // NB: not through `perform`: on the executor (the common case) no closure is made.
        if executor.inExecutor {
            if !token.disposed {
                token.presentation = presentOnExecutor(presenter, description, rules, timeout, callbacks)
            }
        } else {
            executor.execute { [self] in
                guard !token.disposed else { return }
                token.presentation = presentOnExecutor(presenter, description, rules, timeout, callbacks)
            }
        }
        return token
    }

    private func presentOnExecutor(
        _ presenter: Presenter, _ description: ModalDescription, _ rules: [EnabledRule?], _ timeout: Duration?,
        _ callbacks: PresentationCallbacks
    ) -> Presentation? {
        guard !stopped else {
            callbacks.failed(RemoteModalError.hostShutdown)
            return nil
        }
        // The common case, one session of this host: no candidate lists, no cluster lookup.
        if let session = localSession(presenter) {
            guard session.capabilities.contains(description.capability) else {
                callbacks.failed(RemoteModalError.unsupported)
                return nil
            }
            guard session.pending.count < configuration.maxPendingModalsPerSession else {
                callbacks.failed(RemoteModalError.tooManyPending)
                return nil
            }
            return start(presenter, description, rules, timeout, callbacks, on: [session], remotely: [])
        }
        var candidates: [SessionState]
        switch presenter.target {
        case .session(let handle):
            candidates = sessions[handle.id].map { [$0] } ?? []
        case .sessionID(let id):
            candidates = sessions[id].map { [$0] } ?? []
        case .group(let name):
            candidates = sessions.values.filter { $0.client.group == name && !$0.connections.isEmpty }
                .sorted { $0.id < $1.id }
        case .current:
            // Resolved by `Presenter.present` before it gets here.
            candidates = []
        }
        candidates.removeAll { presenter.excluded.contains($0.id) }
        // In a cluster, the candidates on other hosts (pickers and web authentication stay
        // on this host: uploads and callbacks do not cross hosts).
        var remote: [(String, [ClusterMember])] = []
        switch remoteCandidates(for: presenter.target) {
        case .failure(let error):
            callbacks.failed(error)
            return nil
        case .success(let found):
            remote = description.staysOnHost ? [] : found
        }
        guard !candidates.isEmpty || !remote.isEmpty else {
            callbacks.failed(RemoteModalError.missingPresenter)
            return nil
        }
        let targets = candidates.filter { $0.capabilities.contains(description.capability) }
        let remoteTargets = remote.compactMap { host, members -> (String, [ClusterMember])? in
            let capable = members.filter { $0.capabilities.contains(description.capability) }
            return capable.isEmpty ? nil : (host, capable)
        }
        guard !targets.isEmpty || !remoteTargets.isEmpty else {
            callbacks.failed(RemoteModalError.unsupported)
            return nil
        }
        let limit = configuration.maxPendingModalsPerSession
        let withinLimits: (SessionState) -> Bool
        if case .group = presenter.target, let requester = presenter.requester?.id {
            // Per requester, with a host-wide backstop of 16 times the limit per member.
            withinLimits = { $0.pendingCount(requestedBy: requester) < limit && $0.pending.count < limit * 16 }
        } else {
            withinLimits = { $0.pending.count < limit }
        }
        guard targets.allSatisfy(withinLimits) else {
            callbacks.failed(RemoteModalError.tooManyPending)
            return nil
        }
        return start(presenter, description, rules, timeout, callbacks, on: targets, remotely: remoteTargets)
    }

    /// The session a presenter names, when it is one session of this host and not excluded.
    private func localSession(_ presenter: Presenter) -> SessionState? {
        let id: String
        switch presenter.target {
        case .session(let handle): id = handle.id
        case .sessionID(let sessionID): id = sessionID
        case .group, .current: return nil
        }
        guard presenter.excluded.isEmpty || !presenter.excluded.contains(id) else { return nil }
        return sessions[id]
    }

    /// Creates a presentation that passed the checks and shows it on its targets.
    private func start(
        _ presenter: Presenter, _ description: ModalDescription, _ rules: [EnabledRule?], _ timeout: Duration?,
        _ callbacks: PresentationCallbacks, on targets: [SessionState],
        remotely remoteTargets: [(String, [ClusterMember])]
    ) -> Presentation {
        let presentation = Presentation(
            description: description, callbacks: callbacks, rules: rules, presentedAt: clock.now,
            uploadBudget: uploadBudget)
        if case .group(let name) = presenter.target {
            presentation.requesterID = presenter.requester?.id
            presentation.groupName = name
            openGroupPresentations[name, default: [:]][ObjectIdentifier(presentation)] = presentation
        }
        presentation.disabledActions = sameTokenAsDisabled(presenter.disabledActions, among: targets)
        presentation.disabledExplanation = presenter.disabledExplanation
        evaluateTextFieldRules(presentation)
        // An action ruled by a host-side sequence stays disabled until the sequence speaks.
        for (index, rule) in rules.enumerated() where index < presentation.actionStates.count {
            if case .observable = rule { presentation.actionStates[index] = false }
        }
        show(presentation, on: targets)
        presentRemotely(presentation, target: presenter.target, on: remoteTargets)
        if let timeout {
            presentation.timeout = clock.schedule(after: timeout) { [weak self] in
                guard let self else { return }
                perform {
                    guard !presentation.finished else { return }
                    self.finish(presentation, answeredBy: nil, reason: .timeout)
                    presentation.callbacks.failed(RemoteModalError.timeout)
                }
            }
        }
        for (index, rule) in rules.enumerated() {
            guard case .observable(let enabled) = rule else { continue }
            if presentation.ruleSubscriptions == nil { presentation.ruleSubscriptions = CompositeDisposable() }
            presentation.ruleSubscriptions?.insert(
                enabled.distinctUntilChanged().subscribe(onNext: { [self] value in
                    perform { self.setActionState(presentation, index, value) }
                }))
        }
        return presentation
    }

    /// Actions disabled for a session are disabled too for every target admitted by the same
    /// token: a requester's second screen (or anyone holding its token) is the requester, and
    /// must not approve what the requester cannot. Without tokens a name is only claimed, so
    /// only the session itself is.
    func sameTokenAsDisabled(_ disabled: [String: Set<Int>], among targets: [SessionState]) -> [String: Set<Int>] {
        guard !disabled.isEmpty else { return disabled }
        var byGrant: [Int: Set<Int>] = [:]
        for (id, indices) in disabled {
            if let grant = sessions[id]?.grant { byGrant[grant, default: []].formUnion(indices) }
        }
        guard !byGrant.isEmpty else { return disabled }
        var expanded = disabled
        for target in targets {
            if let grant = target.grant, let indices = byGrant[grant] {
                expanded[target.id, default: []].formUnion(indices)
            }
        }
        return expanded
    }

    /// Sends a new presentation to the sessions that show it here.
    func show(_ presentation: Presentation, on targets: [SessionState]) {
        for session in targets {
            let modalID = session.allocateModalID()
            presentation.targets.append((session, modalID))
            session.addPending(modalID, presentation)
            broadcast(session) {
                .present(
                    seq: $0, id: modalID, modal: presentation.currentDescription(for: session.id),
                    uploads: uploadOffer(presentation))
            }
            logger.debug("session \(session.shortID): present \(modalID) (\(presentation.description.kind))")
        }
        metrics.update { $0.presented += 1 }
    }

    /// Shows a session that has just joined a group the group's presentations that are still
    /// open on this host, as if it had been connected when they began: a request whose only
    /// approver's session expired while it was away is shown to that screen's new session,
    /// and to any other screen that joins (issue 32's cold trial: it was shown to nobody, and
    /// the requester waited for ever). The same checks as at the start apply: the kind's
    /// capability, the pending limits, and the requester's disabled actions for a session of
    /// the requester's token. Presentations that came from another host of a cluster are not
    /// shown late.
    func showOpenGroupPresentations(to session: SessionState) {
        guard let group = session.client.group, let open = openGroupPresentations[group] else { return }
        // Those still shown on another member of the group (a group presentation whose
        // members all left waits for none: it is not shown to newcomers).
        let shown = open.values.filter { presentation in
            !presentation.finished && (presentation.cluster?.isOrigin ?? true)
                && presentation.targets.contains { $0.session !== session && $0.session.client.group == group }
        }
        let limit = configuration.maxPendingModalsPerSession
        for presentation in shown.sorted(by: { $0.presentedAt < $1.presentedAt }) {
            guard session.capabilities.contains(presentation.description.capability),
                !presentation.targets.contains(where: { $0.session === session })
            else { continue }
            let within =
                presentation.requesterID.map { session.pendingCount(requestedBy: $0) < limit }
                ?? (session.pending.count < limit)
            guard within, session.pending.count < limit * 16 else { continue }
            presentation.disabledActions = sameTokenAsDisabled(presentation.disabledActions, among: [session])
            show(presentation, on: [session])
        }
    }

    /// Empties the typed passwords of an alert (a resume re-presents it without them) and
    /// re-applies the text-field rules. Returns whether an action's state changed.
    func forgetPasswords(_ presentation: Presentation) -> Bool {
        guard case .alert(_, _, let fields, _) = presentation.description else { return false }
        var forgot = false
        for (index, field) in fields.enumerated()
        where field.kind == .password && index < presentation.textFields.count
            && !presentation.textFields[index].isEmpty
        {
            presentation.textFields[index] = field.text ?? ""
            forgot = true
        }
        guard forgot else { return false }
        let before = presentation.actionStates
        evaluateTextFieldRules(presentation)
        return presentation.actionStates != before
    }

    private func evaluateTextFieldRules(_ presentation: Presentation) {
        for (index, rule) in presentation.rules.enumerated() {
            if case .textFields(let predicate) = rule, index < presentation.actionStates.count {
                presentation.actionStates[index] = predicate(presentation.textFields)
            }
        }
    }

    private func setActionState(_ presentation: Presentation, _ index: Int, _ enabled: Bool) {
        guard !presentation.finished, index < presentation.actionStates.count,
            presentation.actionStates[index] != enabled
        else { return }
        presentation.actionStates[index] = enabled
        sendUpdate(presentation)
    }

    func sendUpdate(_ presentation: Presentation) {
        for (session, modalID) in presentation.targets {
            broadcast(session) { .update(seq: $0, id: modalID, actions: presentation.actionStates(for: session.id)) }
        }
    }

    /// Ends a presentation everywhere: `reason` for the answering session (or every
    /// target), `superseded` for the other sessions of a group.
    func finish(_ presentation: Presentation, answeredBy: SessionState?, reason: DismissReason) {
        executor.assertInExecutor()
        guard !presentation.finished else { return }
        presentation.finished = true
        if let group = presentation.groupName {
            openGroupPresentations[group]?[ObjectIdentifier(presentation)] = nil
            if openGroupPresentations[group]?.isEmpty == true { openGroupPresentations[group] = nil }
        }
        presentation.timeout?.dispose()
        presentation.stallTimer?.dispose()
        presentation.stallTimer = nil
        presentation.ruleSubscriptions?.dispose()
        if let uploads = presentation.uploads {
            uploads.reset()
            metrics.update {
                $0.uploadMemoryBytes = uploadBudget.memoryInUse
                $0.uploadSpoolBytes = uploadBudget.spooled
            }
        }
        for (session, modalID) in presentation.targets {
            session.removePending(modalID)
            let sessionReason: DismissReason = answeredBy == nil || answeredBy === session ? reason : .superseded
            session.recordEnded(modalID, sessionReason)
            broadcast(session) { .dismiss(seq: $0, id: modalID, reason: sessionReason) }
            metrics.update { $0.dismissed[sessionReason.metricsIndex] += 1 }
            logger.debug("session \(session.shortID): dismiss \(modalID) (\(sessionReason.rawValue))")
        }
        if presentation.cluster != nil { clusterFinished(presentation, answeredBy: answeredBy, reason: reason) }
    }

    /// Accepts the first answer for a pending modal; later ones are ignored silently.
    /// `wire` is what the client sent, for an answer that must cross hosts.
    func answer(
        _ id: String, in session: SessionState, ref: String, wire: ClusterAnswerWire,
        _ decide: (Presentation) throws(ProtocolError) -> AnswerDecision
    ) -> ProtocolError? {
        guard session.wasPresented(id) else {
            return ProtocolError(.unknownModal, "modal '\(id)' was never presented here", ref: ref)
        }
        guard let presentation = session.pending[id] else {
            // Already over: no error (a client re-sends after a resume), but repeat the
            // dismiss, which that client may have missed while disconnected.
            if let reason = session.endedReason(id) {
                broadcast(session) { .dismiss(seq: $0, id: id, reason: reason) }
            }
            return nil
        }
        let decision: AnswerDecision
        do {
            decision = try decide(presentation)
        } catch {
            return error
        }
        if presentation.cluster != nil {
            // Shown on several hosts: the first answer anywhere wins, decided in the backplane.
            clusterAnswer(presentation, by: session, decision: decision, wire: wire)
            return nil
        }
        finish(presentation, answeredBy: session, reason: .resolved)
        metrics.resolved(after: clock.now.timeIntervalSince(presentation.presentedAt))
        switch decision {
        case .success(let answer, let files):
            // The answer's flow (a dialog action leading to the next modal) presents, by
            // default, to the session that answered.
            Presenter.withCurrentSession(session.handle) {
                presentation.callbacks.answered(AcceptedAnswer(answer: answer, session: session.handle, files: files))
            }
        case .failure(let code, let text):
            presentation.callbacks.failed(RemoteModalError(code, text))
        }
        return nil
    }

    /// What a picker's `present` says about uploads: the window and the bytes held.
    func uploadOffer(_ presentation: Presentation) -> UploadOffer? {
        presentation.uploads.map { UploadOffer(window: configuration.uploadWindow, received: $0.held) }
    }

    /// Whether a decoded message is an upload chunk for a pending picker of the
    /// connection's session (paced by the upload window, not the message rate).
    func isPickerUpload(_ decoded: Result<ClientMessage, ProtocolError>, on connection: ConnectionState) -> Bool {
        guard case .success(.upload(let chunk)) = decoded, let session = connection.session else { return false }
        return session.pending[chunk.id]?.uploads != nil
    }

    /// Adds an upload chunk to a pending picker and acknowledges it, when the connection's
    /// upload byte budget allows at once, otherwise later. A client with `uploadWindow`
    /// acknowledgements outstanding gets `rate_limited` and the chunk is not stored.
    func upload(_ chunk: UploadChunk, from connection: ConnectionState, in session: SessionState) -> ProtocolError? {
        guard session.wasPresented(chunk.id) else {
            return ProtocolError(.unknownModal, "modal '\(chunk.id)' was never presented here", ref: "upload")
        }
        guard let presentation = session.pending[chunk.id] else { return nil }
        guard let uploads = presentation.uploads else {
            return ProtocolError(
                .uploadInvalid, "a \(presentation.description.kind) modal takes no uploads", ref: "upload"
            ).concerning(file: chunk.file, offset: chunk.offset, held: 0)
        }
        guard connection.heldAcks.count < configuration.uploadWindow else {
            metrics.update { $0.uploadChunksRefused += 1 }
            return ProtocolError(
                .rateLimited,
                "more than \(configuration.uploadWindow) upload chunks unacknowledged; wait for uploadAck",
                ref: "upload"
            ).concerning(file: chunk.file, offset: chunk.offset, held: uploads.heldBytes(of: chunk.file))
        }
        let accepted: (held: Int, bytes: Int)
        do {
            accepted = try uploads.add(
                chunk, from: connection.info.clientAddress, now: clock.now.timeIntervalSince1970,
                stall: configuration.uploadStallSeconds, minimumRate: configuration.uploadMinimumBytesPerSecond)
        } catch {
            metrics.update { $0.uploadChunksRefused += 1 }
            // Where to go on from, as data (the message says it in words too).
            return error.error.concerning(
                file: chunk.file, offset: chunk.offset, held: uploads.heldBytes(of: chunk.file))
        }
        metrics.update {
            $0.uploadBytes += accepted.bytes
            $0.uploadMemoryBytes = uploadBudget.memoryInUse
            $0.uploadSpoolBytes = uploadBudget.spooled
        }
        armStallTimer(presentation)
        let now = clock.now.timeIntervalSince1970
        let due = connection.uploadPacer.spend(accepted.bytes, now: now)
        let ack = HeldAck(due: due, session: session, id: chunk.id, file: chunk.file, received: accepted.held)
        if due <= now + Self.ackSlackSeconds, connection.heldAcks.isEmpty {
            sendAck(ack, to: connection)
        } else {
            connection.heldAcks.append(ack)
            scheduleAcks(connection)
        }
        return nil
    }

    private func sendAck(_ ack: HeldAck, to connection: ConnectionState) {
        let message = HostMessage.uploadAck(
            seq: ack.session.takeSeq(), id: ack.id, file: ack.file, received: ack.received)
        transport.send(message.encode(), to: connection.id)
    }

    /// How early a held acknowledgement may go: one timer sends every acknowledgement due
    /// within it. At the default 32 MiB/s that is about four chunks, 128 KiB early at most,
    /// within the pacer's burst; a timer per chunk (a wake-up of the timer thread and one of
    /// the loop, about 1,000 a second per uploading connection) cost more host CPU than the
    /// chunks' bytes (docs/benchmarks.md, "Uploads", round four).
    static let ackSlackSeconds = 0.004

    /// Sends the held acknowledgements that are due, and waits for the next one.
    private func scheduleAcks(_ connection: ConnectionState) {
        guard connection.ackTimer == nil, let next = connection.heldAcks.first else { return }
        let delay = max(0, next.due - clock.now.timeIntervalSince1970)
        connection.ackTimer = clock.schedule(after: .seconds(delay)) { [weak self] in
            guard let self else { return }
            perform {
                connection.ackTimer = nil
                guard self.connections[connection.id] === connection else { return }
                // The first is what the timer waited for (a coarse clock may fire a little
                // early: sending it anyway guarantees progress); then whatever else is due
                // within the slack, so that one timer sends several.
                let now = self.clock.now.timeIntervalSince1970
                var first = true
                while let next = connection.heldAcks.first, first || next.due <= now + Self.ackSlackSeconds {
                    first = false
                    connection.heldAcks.removeFirst()
                    self.sendAck(next, to: connection)
                }
                self.scheduleAcks(connection)
            }
        }
    }

    /// Decides whether a `result` is acceptable: its shape, its uploads, the API's check.
    func decideResult(_ value: JSONValue, for presentation: Presentation, answeredBy sessionID: String? = nil)
        throws(ProtocolError) -> AnswerDecision
    {
        if case .webAuthentication(_, let callbackURL, nil, _) = presentation.description, callbackURL != nil {
            throw ProtocolError(
                .badMessage, "this web authentication is answered by its callback URL, not by a result",
                ref: "result")
        }
        // An action ruled by `enabledIf` over the text fields is judged on the result's own
        // `textFields`, whatever the host last heard by `input` (after a resume the host has
        // forgotten the typed password, and a correct answer sent straight away was refused).
        // Any other action must be enabled in the state the client was last told.
        let told = presentation.actionStates(for: sessionID)
        var judged = told
        let disabledHere = sessionID.flatMap { presentation.disabledActions[$0] } ?? []
        for (index, rule) in presentation.rules.enumerated() where index < judged.count {
            if case .textFields = rule, !disabledHere.contains(index) { judged[index] = true }
        }
        let answer = try presentation.description.validateResult(value, enabled: judged)
        if case .action(let index, let textFields) = answer, index < presentation.rules.count,
            case .textFields(let predicate) = presentation.rules[index], !predicate(textFields)
        {
            // The code v1 gave when the client was also told it is disabled, else the newer one.
            if index < told.count, !told[index] {
                throw ProtocolError(.badMessage, "action \(index) is disabled", ref: "result")
            }
            throw ProtocolError(
                .actionDisabled, "action \(index) is disabled for these text fields (its rule refuses them)",
                ref: "result")
        }
        if let message = presentation.callbacks.check?(answer) {
            throw ProtocolError(.badMessage, message, ref: "result")
        }
        guard case .picked(let items) = answer, let uploads = presentation.uploads else { return .success(answer, []) }
        return .success(answer, try uploads.finish(items))
    }

    func input(_ id: String, _ textFields: [String], in session: SessionState) -> ProtocolError? {
        guard session.wasPresented(id) else {
            return ProtocolError(.unknownModal, "modal '\(id)' was never presented here", ref: "input")
        }
        guard let presentation = session.pending[id] else { return nil }
        guard case .alert(_, _, let fields, _) = presentation.description else {
            return ProtocolError(.badMessage, "modal '\(id)' has no text fields", ref: "input")
        }
        guard textFields.count == fields.count else {
            return ProtocolError(.badMessage, "field 'textFields' must have \(fields.count) entries", ref: "input")
        }
        presentation.textFields = textFields
        let before = presentation.actionStates
        evaluateTextFieldRules(presentation)
        if presentation.actionStates != before { sendUpdate(presentation) }
        return nil
    }
}

extension RemoteModalError {
    /// The error for a client's `failure` code.
    init(_ code: FailureCode, _ message: String?) {
        switch code {
        case .cancelled: self = .cancelled
        case .unsupported: self = .unsupported
        case .denied: self = .denied(message)
        case .failed: self = .failed(message)
        }
    }
}
