import Dispatch
import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTransport
import Synchronization

/// The host's state machine: connections, sessions, presentations.
///
/// `@unchecked Sendable` invariant: every stored `var` is read and written only on
/// `executor` (the transport's service loop, or a serial queue). Entry points from other
/// threads hop onto it with `perform`; the rest assume they are on it, and the entry
/// points of each turn check it in debug builds (`executor.assertInExecutor()`).
final class HostCore: @unchecked Sendable {
    let configuration: ModalHostConfiguration
    let transport: any HostTransport
    let clock: any SchedulerType
    let executor: any HostExecutor
    let logger: Logger
    let metrics = HostMetrics()
    let newSessions = PublishSubject<Session>()
    /// Memory and spool budgets shared by every upload on this host.
    let uploadBudget: UploadBudget
    private let routes = Locked<[(prefix: String, route: HTTPRoute)]>([])
    /// Host-served web authentication callbacks by nonce.
    let authCallbacks = Locked<[String: AuthCallback]>([:])
    /// Short sign-in links being shown: code to the authorization URL it redirects to.
    let shortLinks = Locked<[String: String]>([:])
    /// Wrong short-link codes by client address (`shortLinkMissesPerMinute`).
    let shortLinkMisses: Locked<MissBudget>

    var connections: [ConnectionID: ConnectionState] = [:]
    var sessions: [String: SessionState] = [:]
    /// Live sessions per client address (the per-address cap).
    var sessionsByAddress: [String: Int] = [:]
    /// Sessions without a connection now (`disconnectOrder` set).
    var retainedCount = 0
    /// Sessions that lost their last connection so far (orders retained sessions).
    var disconnects = 0
    /// Retained sessions, longest disconnected first: the host's and each address's
    /// (eviction reads the front instead of walking every session).
    var retainedOrder = RetainedOrder()
    var retainedOrderByAddress: [String: RetainedOrder] = [:]
    /// Group presentations not yet finished, by group name: a session joining a group is
    /// shown these without a walk over every session.
    var openGroupPresentations: [String: [ObjectIdentifier: Presentation]] = [:]
    /// Hellos waiting for a later loop turn, and the time hellos took in the current one
    /// (`helloMicrosecondsPerTurn`, HostCore+HelloPacing.swift).
    var helloQueue = HelloQueue()
    var helloNanosecondsThisTurn: UInt64 = 0
    var helloTurn: UInt64 = 0
    var helloTurnScheduled = false
    var trimTimer: (any Disposable)?
    /// Recently sent controls lists with their encodings, most recent first, shared by the
    /// sessions that show them (`internedControls`).
    var controlsIntern: [(items: [ControlItem], json: [UInt8])] = []
    var stopped = false
    /// The cluster state when the host is part of one (`configuration.cluster`).
    let cluster: ClusterState?

    init(
        configuration: ModalHostConfiguration, transport: any HostTransport, clock: any SchedulerType,
        executor: any HostExecutor, logger: Logger
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.executor = executor
        self.logger = logger
        cluster = configuration.cluster.map(ClusterState.init)
        shortLinkMisses = Locked(
            MissBudget(
                limit: configuration.shortLinkMissesPerMinute, window: 60,
                lockout: configuration.shortLinkLockoutSeconds))
        uploadBudget = UploadBudget(
            maxMemory: configuration.maxUploadMemoryBytes, maxReserved: configuration.maxUploadSpoolBytes,
            maxReservedPerAddress: configuration.maxUploadBytesPerAddress,
            spool: SpoolDirectory(path: configuration.spoolDirectory))
    }

    /// Runs `work` on the executor: inline when already there (so effects keep the order
    /// in which flows cause them), otherwise asynchronously.
    func perform(_ work: @escaping @Sendable () -> Void) {
        if executor.inExecutor { work() } else { executor.execute(work) }
    }

    /// Runs `body` on the executor and waits for it; inline when already there.
    func onExecutor<T>(_ body: () -> T) -> T {
        executor.sync(body)
    }

    // MARK: Transport events (any thread)

    func start() throws {
        try uploadBudget.spool.prepare()
        perform { self.startTrimming() }
        let binaryUploads = configuration.binaryUploads
        try transport.start(
            events: TransportEvents(
                // Weak: the transport outlives nothing, but a strong capture would make the
                // core and its transport keep each other alive after the host is released.
                opened: { [weak self] id, info in
                    guard let self else { return }
                    perform { self.opened(id, info) }
                },
                message: { [weak self] id, message in
                    guard let self else { return }
                    // Decoding is pure: do it on the transport's thread, then hop.
                    let decoded: Result<ClientMessage, ProtocolError>
                    switch message {
                    case .text(let text):
                        decoded = Result { () throws(ProtocolError) -> ClientMessage in try ClientMessage.decode(text) }
                    case .binary(let frame) where binaryUploads:
                        decoded = frame.withUnsafeBytes { frame in
                            Result { () throws(ProtocolError) -> ClientMessage in try ClientMessage.decodeBinary(frame)
                            }
                        }
                    case .binary:
                        decoded = .failure(ProtocolError(.badMessage, "binary frames are not accepted"))
                    }
                    perform { self.received(id, decoded) }
                },
                closed: { [weak self] id, code, _ in
                    guard let self else { return }
                    perform { self.closed(id, code) }
                },
                route: { [weak self] request in self?.route(request) }))
        startCluster()
    }

    func addRoute(prefix: String, _ route: @escaping HTTPRoute) {
        routes.withLock { $0.append((prefix, route)) }
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse? {
        if request.path == "/metrics" {
            var response = HTTPResponse.text(200, metrics.render(transport: transport.stats))
            response.contentType = "text/plain; version=0.0.4; charset=utf-8"
            return response
        }
        if let response = authCallbackRoute(request) { return response }
        if let response = shortLinkRoute(request) { return response }
        for (prefix, route) in routes.withLock({ $0 }) where request.path.hasPrefix(prefix) {
            if let response = route(request) { return response }
        }
        return nil
    }

    // MARK: Connections (executor)

    private func opened(_ id: ConnectionID, _ info: ConnectionInfo) {
        executor.assertInExecutor()
        guard !stopped else {
            transport.close(id, code: .goingAway, reason: "host shutting down")
            return
        }
        let uploadRate = Double(configuration.uploadBytesPerSecond)
        let connection = ConnectionState(
            id: id, info: info,
            bucket: TokenBucket(rate: configuration.messagesPerSecond, burst: configuration.messageBurst),
            uploadPacer: UploadPacer(
                rate: uploadRate,
                burst: max(uploadRate / 4, Double(configuration.uploadWindow * UploadAssembly.maxChunkBytes))))
        // Timers hold the core weakly: a scheduler keeps a cancelled timer's closure until its
        // deadline, and must not keep a released host alive until then.
        connection.helloTimer = clock.schedule(after: .seconds(configuration.helloTimeoutSeconds)) { [weak self] in
            guard let self else { return }
            perform {
                guard let connection = self.connections[id], case .awaitingHello = connection.phase else { return }
                self.logger.info("connection \(id) from \(info.peerAddress): no hello in time, closing")
                self.closeConnection(connection, code: .policyViolation, reason: "hello timeout")
            }
        }
        connections[id] = connection
        metrics.update { $0.connections += 1 }
        logger.debug("connection \(id) opened from \(info.peerAddress)")
    }

    private func closed(_ id: ConnectionID, _ code: CloseCode) {
        executor.assertInExecutor()
        guard let connection = connections.removeValue(forKey: id) else { return }
        connection.helloTimer?.dispose()
        connection.ackTimer?.dispose()
        connection.heldAcks = []
        metrics.update { $0.connections -= 1 }
        guard let session = connection.session else { return }
        session.connections.removeAll { $0 == id }
        logger.info("session \(session.shortID): connection \(id) closed (\(code))")
        if session.connections.isEmpty { clusterMembershipChanged(session) }
        if session.connections.isEmpty, session.alive, !stopped {
            disconnects += 1
            session.disconnectOrder = disconnects
            retainedCount += 1
            retainedOrder.append(session)
            retainedOrderByAddress[session.address, default: RetainedOrder()].append(session)
            startRetention(session)
            enforceRetainedLimit()
        }
    }

    func closeConnection(_ connection: ConnectionState, code: CloseCode, reason: String) {
        connection.phase = .closing
        connection.helloTimer?.dispose()
        transport.close(connection.id, code: code, reason: reason)
    }

    // MARK: Messages (executor)

    private func received(_ id: ConnectionID, _ decoded: Result<ClientMessage, ProtocolError>) {
        executor.assertInExecutor()
        guard let connection = connections[id] else { return }
        if case .closing = connection.phase { return }
        // Chunks for a pending picker are paced by the upload window and byte budget
        // (`upload(_:from:in:)`); every other message by the message rate.
        guard isPickerUpload(decoded, on: connection) || connection.bucket.take(now: clock.now.timeIntervalSince1970)
        else {
            let modal = try? decoded.get().modalID
            reject(
                connection,
                ProtocolError(.rateLimited, "more than \(Int(configuration.messagesPerSecond)) messages a second")
                    .concerning(modal))
            return
        }
        let message: ClientMessage
        switch decoded {
        case .failure(let error):
            reject(connection, error)
            return
        case .success(let value):
            message = value
        }
        if connection.queuedHello != nil {
            hold(message, behindHelloOf: connection)
            return
        }
        dispatch(message, on: connection)
    }

    /// Handles one message that passed the rate limit and decoding.
    func dispatch(_ message: ClientMessage, on connection: ConnectionState) {
        let outcome: ProtocolError?
        switch (connection.phase, message) {
        case (.awaitingHello, .hello(let hello)):
            outcome = admitOrQueue(connection, hello)
        case (.awaitingHello, _):
            outcome = ProtocolError(.helloRequired, "send hello first", ref: message.type)
        case (.joined, .hello):
            outcome = ProtocolError(.badMessage, "hello was already received", ref: "hello")
        case (.joined(let session), _):
            // An error about a modal says which (`id`): after a resume a client re-sends
            // several answers and must tell which one was refused.
            outcome = handle(message, from: connection, in: session)?.concerning(message.modalID)
        case (.closing, _):
            outcome = nil
        }
        if let outcome {
            reject(connection, outcome)
        } else {
            connection.consecutiveErrors = 0
        }
    }

    /// Answers with `error`; the connection closes with 1008 after too many in a row.
    func reject(_ connection: ConnectionState, _ error: ProtocolError) {
        metrics.update { $0.errors[error.code, default: 0] += 1 }
        connection.consecutiveErrors += 1
        let seq = connection.session?.takeSeq()
        transport.send(HostMessage.error(seq: seq, error).encode(), to: connection.id)
        logger.debug("connection \(connection.id): error \(error.code) \(logSafe(error.message, limit: 160))")
        if connection.consecutiveErrors >= configuration.maxConsecutiveErrors {
            logger.info("connection \(connection.id): \(connection.consecutiveErrors) errors in a row, closing")
            closeConnection(connection, code: .policyViolation, reason: "too many errors")
        }
    }

    func acceptHello(_ connection: ConnectionState, _ hello: Hello) -> ProtocolError? {
        guard hello.protocolVersion == 1 else {
            let error = ProtocolError(.unsupportedProtocol, "this host speaks protocol 1", ref: "hello")
            metrics.update { $0.errors[error.code, default: 0] += 1 }
            transport.send(HostMessage.error(seq: nil, error).encode(), to: connection.id)
            closeConnection(connection, code: .policyViolation, reason: "unsupported protocol")
            return nil
        }
        let grant: (key: Int?, name: String?, groups: Set<String>?)
        switch authorize(hello.token) {
        case .refused:
            logger.info("connection \(connection.id) from \(connection.info.peerAddress): unauthorized")
            closeConnection(connection, code: .policyViolation, reason: "unauthorized")
            return nil
        case .open:
            grant = (nil, nil, nil)
        case .granted(let key, let name, let groups):
            grant = (key, name, groups)
        }
        if let group = hello.client.group, let allowed = grant.groups, !allowed.contains(group) {
            // The same answer as a wrong token (close 1008 `unauthorized`, no error): telling
            // them apart would tell a guesser that its token is a real one.
            logger.info("connection \(connection.id): token does not grant group \(logSafe(group))")
            closeConnection(connection, code: .policyViolation, reason: "unauthorized")
            return nil
        }
        // The name others see comes from the grant, not from what the client claims.
        var client = hello.client
        if let name = grant.name { client.name = name }
        connection.helloTimer?.dispose()
        connection.helloTimer = nil
        // A group is part of a session's identity (flows read it from `Session.client`, which
        // is the first hello's): a resume naming another group starts a new session in that
        // group instead (a tab whose address gained ?group= stayed alone in its old one).
        if let resumeID = hello.resumeSession, let session = sessions[resumeID], session.alive,
            session.grant == grant.key, session.client.group == client.group
        {
            session.retentionTimer?.dispose()
            session.retentionTimer = nil
            if session.disconnectOrder != nil { retainedCount -= 1 }
            session.disconnectOrder = nil
            session.client = client
            session.capabilities = Set(hello.capabilities)
            session.connections.append(connection.id)
            connection.phase = .joined(session)
            clusterMembershipChanged(session)
            metrics.update { $0.sessionsResumed += 1 }
            logger.info(
                "session \(session.shortID) resumed by \(logSafe(client.kind)) \(logSafe(client.name))"
                    + " on \(connection.id)")
            transport.send(
                HostMessage.welcome(
                    session: session.id, resumed: true, retentionSeconds: retentionSeconds,
                    heartbeat: configuration.heartbeat, binaryUploads: configuration.binaryUploads
                ).encode(),
                to: connection.id)
            transport.send(
                HostMessage.controls(seq: session.takeSeq(), items: session.controls).encode(), to: connection.id)
            var changed: [Presentation] = []
            for modalID in session.pendingOrder {
                guard let presentation = session.pending[modalID] else { continue }
                // The re-sent alert carries no password: its rules must judge what the
                // person now sees, or "Sign In" would come back enabled with an empty field.
                if forgetPasswords(presentation) { changed.append(presentation) }
                let present = HostMessage.present(
                    seq: session.takeSeq(), id: modalID, modal: presentation.currentDescription(for: session.id),
                    uploads: uploadOffer(presentation))
                transport.send(present.encode(), to: connection.id)
            }
            for presentation in changed { sendUpdate(presentation) }
            // Statuses sent after what the client processed may have died with its old
            // connection (a network that stalls, then comes back): send them again, with
            // new `seq`s, after the pending modals.
            if let lastSeq = hello.resumeLastSeq {
                for status in session.recentStatuses where status.seq > lastSeq {
                    let again = HostMessage.status(seq: session.takeSeq(), level: status.level, text: status.text)
                    transport.send(again.encode(), to: connection.id)
                }
            }
            // The end of what a resume re-sends: a client need not guess with a timer which
            // shown modals ended while it was away (those not re-presented before this).
            transport.send(HostMessage.resumed(seq: session.takeSeq()).encode(), to: connection.id)
            return nil
        }
        // The client's address (behind a trusted proxy, from X-Forwarded-For), not the proxy's.
        let address = connection.info.clientAddress
        if let refusal = admitSession(from: address) {
            metrics.update { $0.admissionsRefused[refusal, default: 0] += 1 }
            logger.warning("connection \(connection.id) from \(address): \(refusal), closing with 1013")
            closeConnection(connection, code: .tryAgainLater, reason: refusal)
            return nil
        }
        let id = Secrets.sessionID()
        let handle = Session(id: id, client: client, core: self)
        let session = SessionState(
            id: id, client: client, capabilities: Set(hello.capabilities), handle: handle, address: address,
            grant: grant.key)
        session.connections = [connection.id]
        sessions[id] = session
        sessionsByAddress[address, default: 0] += 1
        connection.phase = .joined(session)
        metrics.update {
            $0.sessions += 1
            $0.sessionsCreated += 1
        }
        logger.info(
            "session \(session.shortID) created for \(logSafe(client.kind)) \(logSafe(client.name))"
                + (client.group.map { " in group \(logSafe($0))" } ?? "") + " on \(connection.id)")
        transport.send(
            HostMessage.welcome(
                session: id, resumed: false, retentionSeconds: retentionSeconds,
                heartbeat: configuration.heartbeat, binaryUploads: configuration.binaryUploads
            ).encode(),
            to: connection.id)
        clusterMembershipChanged(session)
        // The `sessions` handler runs the session's flow: `Presenter.current` is this session.
        Presenter.withCurrentSession(handle) { newSessions.onNext(handle) }
        showOpenGroupPresentations(to: session)
        return nil
    }

    var retentionSeconds: Int { Int(configuration.retentionSeconds.rounded()) }

    private func handle(_ message: ClientMessage, from connection: ConnectionState, in session: SessionState)
        -> ProtocolError?
    {
        switch message {
        case .hello:
            return nil
        case .result(let id, let value):
            return answer(id, in: session, ref: "result", wire: .result(value)) { presentation throws(ProtocolError) in
                try decideResult(value, for: presentation, answeredBy: session.id)
            }
        case .failure(let id, let code, let text):
            return answer(id, in: session, ref: "failure", wire: .failure(code, text)) { _ in .failure(code, text) }
        case .input(let id, let textFields):
            return input(id, textFields, in: session)
        case .upload(let chunk):
            return upload(chunk, from: connection, in: session)
        case .event(let control):
            session.handle.tapped(control)
            return nil
        case .ping(let id):
            // Connection-level: only to the asking connection, no `seq`, nothing kept.
            transport.send(HostMessage.pong(id: id).encode(), to: connection.id)
            return nil
        }
    }

    // MARK: Sending (executor)

    /// Sends a message to every connection of a session, with the next `seq`.
    func broadcast(_ session: SessionState, _ build: (Int) -> HostMessage) {
        send(build(session.takeSeq()).encodeUTF8(), to: session)
    }

    /// Sends an encoded message (its `seq` taken from the session) to every connection of
    /// the session.
    func send(_ utf8: [UInt8], to session: SessionState) {
        executor.assertInExecutor()
        for connection in session.connections { transport.send(utf8: utf8, to: connection) }
    }
}
