import RemoteModalProtocol

/// The one protocol client: events in, actions out, no I/O, no clock, no threads.
///
/// It owns the reconnect policy, the hello with `resume` and `lastSeq`, de-duplication by
/// `seq`, the answer outbox (kept across reconnects and, through `persist`, across a client
/// restart), the welcome and reply watchdogs, the input throttle and the uploads. Every
/// queue it keeps is bounded by `ClientLimits`. Its owner runs the returned actions in order.
public struct ClientStateMachine: Sendable {
    enum Phase: Equatable {
        /// Before `storeLoaded`.
        case idle
        /// Waiting for the reconnect timer.
        case waiting
        /// The attempt is opening.
        case connecting(Int)
        /// Open, hello sent, no welcome yet.
        case open(Int)
        /// Welcomed.
        case welcomed(Int)
        /// Not retrying until `retryNow`.
        case stopped
        /// Closed for good.
        case closed
    }

    struct Resync: Equatable {
        var attempt: Int
        var seen: Set<String> = []
        var controls = false
    }

    /// Who the client is, its policy and bounds.
    public let configuration: ClientConfiguration
    let jitter: @Sendable () -> Double

    var phase = Phase.idle
    var attempts = 0
    var failures = 0
    var hostLeft = false
    var session: String?
    var retentionSeconds = 60
    var retentionPassed = false
    var lastSeq = 0
    var helloRefusal: ProtocolError?

    /// Shown modals by id, and their order.
    var shown: [String: ModalForm] = [:]
    var order: [String] = []
    /// Answers waiting for their dismiss, oldest first.
    var outbox: [(id: String, message: ClientMessage)] = []
    var lastAnswered: String?
    var lastInput: [String: [String]] = [:]
    var inputPending: [String: [String]] = [:]
    var inputThrottled: Set<String> = []
    var replyArmed = false
    /// After a resume: the re-sent answers whose reply counts (other messages do not).
    var awaitingReply: Set<String>?
    var resync: Resync?
    /// After a resume: shown modals the host did not present again whose answer was sent
    /// again. The host repeats a remembered modal's `dismiss` with its reason (another
    /// screen's answer came first: `superseded`), and handles messages in order: the `pong`
    /// to a later `ping` says it sent none, so the modal ended while away.
    var concluding: Set<String> = []
    var uploads: [String: UploadPlan] = [:]
    /// The heartbeat the welcome offered (none from hosts before it).
    var heartbeat: Heartbeat?
    /// Upload chunks go as binary frames on this connection (its `welcome` offered them).
    var binaryChunks = false
    /// Whether the heartbeat timer runs with the active interval (else idle).
    var beatActive = false
    /// A `ping` went out and nothing has come since.
    var pingOutstanding = false
    var pingCount = 0
    /// Alerts marked `checking` while the current message was handled (not checked by it).
    var markedChecking: Set<String> = []
    /// A resume's re-sent state is still coming (until its `resumed` marker, or the resync
    /// timer for a host without one): it was sent before the host read the values re-sent
    /// at the welcome, so it does not end their `checking`.
    var resentStateDue = false
    /// Automatic replies that may go out before the `replies` timer refills the budget.
    var replyBudget = ClientStateMachine.replyBurst
    /// Whether the `replies` timer runs.
    var repliesRefilling = false
    /// Automatic replies past the budget, oldest first, by modal id (a dismiss drops its own).
    var heldReplies: [(id: String, message: ClientMessage)] = []

    /// Automatic replies (a `failure` for a present this client cannot show) sent at once; as
    /// many more each `replyInterval`, so a flood of such presents costs a few frames a second.
    public static let replyBurst = 16
    /// How often the automatic replies' budget refills, in seconds.
    public static let replyInterval = 1.0
    /// The most automatic replies held past the budget; more are skipped with a word (a host
    /// that sends that many presents no client can show is not waiting for each answer).
    public static let heldReplyLimit = 64

    /// Creates a machine; nothing happens before `storeLoaded`.
    /// - Parameters:
    ///   - configuration: Who the client is, its policy and bounds.
    ///   - jitter: Numbers in 0..<1 for the backoff's jitter (tests pass a constant).
    public init(
        configuration: ClientConfiguration, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.configuration = configuration
        self.jitter = jitter
    }

    /// The modals shown now, in the order they were presented.
    public var forms: [ModalForm] { order.compactMap { shown[$0] } }

    /// The session id (a bearer secret: never log it whole).
    public var sessionID: String? { session }

    /// The highest `seq` processed in this session since the client started.
    public var lastProcessedSeq: Int { lastSeq }

    /// Whether a welcomed connection is up.
    public var isConnected: Bool {
        if case .welcomed = phase { return true }
        return false
    }

    /// The answers waiting for their `dismiss`, oldest first.
    public var keptAnswers: [ClientMessage] { outbox.map(\.message) }

    var attempt: Int? {
        switch phase {
        case .connecting(let attempt), .open(let attempt), .welcomed(let attempt): attempt
        default: nil
        }
    }

    /// Applies one event.
    /// - Parameter event: What happened.
    /// - Returns: What to do, in order.
    public mutating func handle(_ event: ClientEvent) -> [ClientAction] {
        switch event {
        case .storeLoaded(let snapshot):
            guard phase == .idle else { return [] }
            session = snapshot?.session
            retentionSeconds = snapshot?.retentionSeconds ?? 60
            for message in snapshot?.outbox ?? [] {
                if let id = Self.answerID(message), !outbox.contains(where: { $0.id == id }) {
                    outbox.append((id, message))
                }
            }
            outbox = Array(outbox.suffix(configuration.limits.outbox))
            return connect()
        case .linkOpened(let number):
            guard phase == .connecting(number) else { return [] }
            phase = .open(number)
            let hello = Hello(
                client: configuration.client, capabilities: configuration.capabilities, token: configuration.token,
                resumeSession: session, resumeLastSeq: session != nil && lastSeq > 0 ? lastSeq : nil)
            return [.send(attempt: number, text: ClientMessage.hello(hello).encode())]
        case .linkClosed(let number, let code, let reason):
            guard attempt == number else { return [] }
            return closed(number, code: code, reason: reason)
        case .linkFailed(let number, let failure):
            guard attempt == number else { return [] }
            return failed(number, failure)
        case .textReceived(let number, let text):
            guard attempt == number, phase != .connecting(number) else { return [] }
            // Messages come in order: whatever follows typed values comes after the host took them,
            // but for a resume's re-sent state (and its end), sent before the values re-sent then.
            let checking = order.filter { shown[$0]?.checking == true }
            if !resentStateDue { markedChecking = [] }
            let actions = received(text, attempt: number) + beat(number)
            return actions + inputHeard(checking) + probe(number)
        case .oversizedReceived(let number, let bytes):
            guard attempt == number else { return [] }
            return [
                .emit(.skipped(why: "a message of \(bytes) bytes (more than \(configuration.limits.messageBytes))"))
            ]
        case .overwhelmed(let number):
            guard attempt == number else { return [] }
            // What the driver dropped is recovered by the resume: the hello's `lastSeq` is the
            // last message handled, so the host sends again what stands.
            return [.closeLink(attempt: number, code: 1008, reason: "client overwhelmed"), .emit(.overwhelmed)]
                + lost(number, .closed(code: 1006, reason: "client overwhelmed"))
        case .timerFired(let timer):
            return fired(timer)
        case .answered(let id, let reply):
            return answer(id, reply)
        case .tapped(let control):
            guard case .welcomed(let number) = phase else { return [.emit(.offline(what: "tap on \(control)"))] }
            return [.send(attempt: number, text: ClientMessage.event(control: control).encode())] + quicken(number)
        case .typed(let id, let textFields):
            return typed(id, textFields)
        case .picked(let id, let files):
            return picked(id, files)
        case .retryUpload(let id):
            guard var plan = uploads[id], plan.stopped != nil else { return [] }
            plan.stopped = nil
            plan.rewind()
            if !isConnected { plan.pause() }
            uploads[id] = plan
            return pump(id)
        case .chunkRead(let id, let file, let offset, let bytes):
            return chunkRead(id, file: file, offset: offset, bytes: bytes)
        case .chunkReadFailed(let id, let file, let message):
            guard var plan = uploads[id], plan.reading.contains(where: { $0.file == file }) else { return [] }
            plan.pause()
            plan.stopped = message
            uploads[id] = plan
            return [.emit(.uploadStopped(id: id, message: message))]
        case .retryNow:
            switch phase {
            case .waiting, .stopped:
                failures = 0
                return [.cancelTimer(.reconnect)] + connect()
            default:
                return []
            }
        case .stop:
            var actions: [ClientAction] = [.cancelTimer(.reconnect), .cancelTimer(.replies)]
            if let number = attempt {
                actions += [
                    .cancelTimer(.welcome(attempt: number)), .cancelTimer(.reply(attempt: number)),
                    .cancelTimer(.heartbeat(attempt: number)), .cancelTimer(.pong(attempt: number)),
                    .closeLink(attempt: number, code: 1000, reason: "client stopped"),
                ]
            }
            phase = .closed
            return actions + [.emit(.connection(.closed))]
        }
    }

    static func answerID(_ message: ClientMessage) -> String? {
        switch message {
        case .result(let id, _), .failure(let id, _, _): id
        default: nil
        }
    }

    func snapshot() -> ClientAction {
        .persist(ClientSnapshot(session: session, retentionSeconds: retentionSeconds, outbox: outbox.map(\.message)))
    }

    // MARK: Connection

    mutating func connect() -> [ClientAction] {
        attempts += 1
        phase = .connecting(attempts)
        var actions: [ClientAction] = []
        if attempts == 1 { actions.append(.emit(.connection(.connecting))) }
        helloRefusal = nil
        actions += [
            .openLink(attempt: attempts),
            .startTimer(.welcome(attempt: attempts), seconds: configuration.policy.welcomeTimeout),
        ]
        return actions
    }

    private mutating func closed(_ number: Int, code: UInt16, reason: String) -> [ClientAction] {
        switch code {
        case 1001:
            hostLeft = true
            return lost(number, .hostLeft)
        case 1013:
            return lost(number, .busy(reason: reason))
        case 1008 where reason == "unauthorized":
            return lost(number, .unauthorized(message: helloRefusal?.message), stop: true)
        default:
            return lost(number, .closed(code: code, reason: reason))
        }
    }

    private mutating func failed(_ number: Int, _ failure: LinkFailure) -> [ClientAction] {
        if case .http(let status) = failure, (400..<500).contains(status), status != 408, status != 429 {
            // The same upgrade would be refused the same way (a wrong path, a foreign origin).
            return lost(number, .failed(failure), stop: true)
        }
        return lost(number, .failed(failure))
    }

    /// The link ended: pause what depends on it, then retry with backoff (or stop).
    mutating func lost(_ number: Int, _ why: Disconnection, stop: Bool = false, close: Bool = false)
        -> [ClientAction]
    {
        let wasWelcomed = phase == .welcomed(number)
        var actions: [ClientAction] = [
            .cancelTimer(.welcome(attempt: number)), .cancelTimer(.reply(attempt: number)),
            .cancelTimer(.resync(attempt: number)), .cancelTimer(.heartbeat(attempt: number)),
            .cancelTimer(.pong(attempt: number)),
        ]
        if close { actions.append(.closeLink(attempt: number, code: 1000, reason: "gave up")) }
        resync = nil
        // Still shown: the next resume judges them again.
        concluding = []
        awaitingReply = nil
        replyArmed = false
        heartbeat = nil
        pingOutstanding = false
        for id in uploads.keys { uploads[id]?.pause() }
        for id in inputThrottled { actions.append(.cancelTimer(.input(id: id))) }
        inputThrottled = []
        inputPending = [:]
        if wasWelcomed { actions.append(.startTimer(.retention, seconds: Double(retentionSeconds))) }
        if stop {
            phase = .stopped
            return actions + [.emit(.connection(.stopped(why)))]
        }
        phase = .waiting
        failures += 1
        let policy = configuration.policy
        var delay = policy.delay(failures: failures, random: jitter(), ceiling: hostLeft ? policy.hostLeftCap : nil)
        switch why {
        case .busy: delay = max(delay, policy.busyFloor)
        case .failed(.http(503)), .failed(.upgradeRefused): delay = max(delay, policy.busyFloor)
        case .failed(.tls): delay = policy.cap
        default: break
        }
        actions.append(.startTimer(.reconnect, seconds: delay))
        // Counted within this outage: a welcome (or "retry now") starts the count again, so a
        // fresh outage after months of running is "attempt 2", never "attempt 61".
        actions.append(.emit(.connection(.reconnecting(attempt: failures + 1, retryIn: delay, why: why))))
        return actions
    }

    private mutating func fired(_ timer: ClientTimer) -> [ClientAction] {
        switch timer {
        case .reconnect:
            guard phase == .waiting else { return [] }
            return connect()
        case .welcome(let number):
            guard phase == .connecting(number) || phase == .open(number) else { return [] }
            return lost(number, .noWelcome, close: true)
        case .reply(let number):
            guard phase == .welcomed(number), replyArmed else { return [] }
            return lost(number, .noReply, close: true)
        case .heartbeat(let number):
            guard phase == .welcomed(number), heartbeat != nil, !pingOutstanding else { return [] }
            return ping(number)
        case .pong(let number):
            guard phase == .welcomed(number), let heartbeat, pingOutstanding else { return [] }
            let waited = (beatActive ? heartbeat.activeSeconds : heartbeat.idleSeconds) + heartbeat.timeoutSeconds
            return lost(number, .silent(seconds: waited), close: true)
        case .resync(let number):
            guard resync?.attempt == number else { return [] }
            resentStateDue = false
            return endResync(except: nil)
        case .input(let id):
            guard let values = inputPending.removeValue(forKey: id) else {
                inputThrottled.remove(id)
                return []
            }
            guard case .welcomed(let number) = phase, shown[id] != nil else {
                inputThrottled.remove(id)
                return []
            }
            return [
                .send(attempt: number, text: ClientMessage.input(id: id, textFields: values).encode()),
                .startTimer(.input(id: id), seconds: configuration.policy.inputInterval),
            ] + inputSent(id, number) + probe(number)
        case .retention:
            if !isConnected { retentionPassed = true }
            return []
        case .replies:
            repliesRefilling = false
            replyBudget = Self.replyBurst
            return flushReplies()
        }
    }

    /// Sends an automatic reply within its budget, else holds it (bounded) for the next refill.
    mutating func autoReply(_ id: String, _ message: ClientMessage, attempt number: Int) -> [ClientAction] {
        heldReplies.removeAll { $0.id == id }
        guard heldReplies.isEmpty, replyBudget > 0 else {
            guard heldReplies.count < Self.heldReplyLimit else {
                return [.emit(.skipped(why: "a reply past \(Self.heldReplyLimit) held (the host sends too fast)"))]
            }
            heldReplies.append((id, message))
            return refillReplies()
        }
        replyBudget -= 1
        return [.send(attempt: number, text: message.encode())] + refillReplies()
    }

    /// Held automatic replies, oldest first, within the budget (on a welcomed link only).
    mutating func flushReplies() -> [ClientAction] {
        guard case .welcomed(let number) = phase else { return [] }
        var actions: [ClientAction] = []
        while replyBudget > 0, !heldReplies.isEmpty {
            replyBudget -= 1
            actions.append(.send(attempt: number, text: heldReplies.removeFirst().message.encode()))
        }
        return actions + refillReplies()
    }

    /// Starts the budget's refill once some of it is spent.
    private mutating func refillReplies() -> [ClientAction] {
        guard !repliesRefilling, replyBudget < Self.replyBurst || !heldReplies.isEmpty else { return [] }
        repliesRefilling = true
        return [.startTimer(.replies, seconds: Self.replyInterval)]
    }

    /// Arms the reply watchdog after an answer or a chunk (once; any reply disarms it).
    mutating func expectReply(_ number: Int) -> [ClientAction] {
        guard !replyArmed else { return [] }
        replyArmed = true
        return [.startTimer(.reply(attempt: number), seconds: configuration.policy.replyTimeout)]
    }

    /// Something came from the host: the link is alive, unless a resume's re-sent answers
    /// wait for their own reply (what the host sent for the hello left before it read them).
    mutating func heard(_ message: HostMessage?, attempt number: Int) -> [ClientAction] {
        guard replyArmed else { return [] }
        if let awaiting = awaitingReply, let message {
            switch message {
            case .error: break
            case .dismiss(_, let id, _) where awaiting.contains(id): break
            default: return []
            }
        }
        replyArmed = false
        awaitingReply = nil
        return [.cancelTimer(.reply(attempt: number))]
    }
}
