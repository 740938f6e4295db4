import RemoteModalClient
import RemoteModalProtocol

/// A `ClientStateMachine` in virtual time: runs its actions, keeps what it sent and told the
/// app, fires its timers when `advance` passes them. No socket, no clock, no threads.
struct MachineHarness {
    var machine: ClientStateMachine
    var now = 0.0
    var timers: [ClientTimer: Double] = [:]
    var sent: [(attempt: Int, message: ClientMessage)] = []
    var updates: [ClientUpdate] = []
    var opened: [Int] = []
    var closed: [Int] = []
    var reads: [(id: String, file: Int, offset: Int, length: Int)] = []
    var persisted: ClientSnapshot?
    var seq = 0

    static let signIn = ModalDescription.alert(
        title: "Sign in", message: nil,
        textFields: [TextFieldSpec(kind: .email, placeholder: "e-mail"), TextFieldSpec(kind: .password)],
        actions: [ActionSpec(title: "Cancel", style: .cancel), ActionSpec(title: "Sign In", enabled: false)])

    init(
        jitter: Double = 1, snapshot: ClientSnapshot? = nil, limits: ClientLimits = .default,
        configure: (inout ClientConfiguration) -> Void = { _ in }
    ) {
        var configuration = ClientConfiguration(
            client: ClientDescription(kind: "test", name: "t"), limits: limits)
        configure(&configuration)
        machine = ClientStateMachine(configuration: configuration, jitter: { jitter })
        handle(.storeLoaded(snapshot))
    }

    var attempt: Int { opened.last ?? 0 }

    mutating func handle(_ event: ClientEvent) {
        for action in machine.handle(event) {
            switch action {
            case .openLink(let attempt): opened.append(attempt)
            case .send(let attempt, let text): sent.append((attempt, try! ClientMessage.decode(text)))
            case .sendBinary(let attempt, let bytes): sent.append((attempt, try! ClientMessage.decodeBinary(bytes)))
            case .closeLink(let attempt, _, _): closed.append(attempt)
            case .startTimer(let timer, let seconds): timers[timer] = now + seconds
            case .cancelTimer(let timer): timers[timer] = nil
            case .readChunk(let id, let file, let offset, let length): reads.append((id, file, offset, length))
            case .releaseFiles: break
            case .persist(let snapshot): persisted = snapshot
            case .emit(let update): updates.append(update)
            }
        }
    }

    /// Moves virtual time on, firing each timer as its time comes.
    mutating func advance(_ seconds: Double) {
        let target = now + seconds
        while let (timer, due) = timers.filter({ $0.value <= target }).min(by: { $0.value < $1.value }) {
            now = due
            timers[timer] = nil
            handle(.timerFired(timer))
        }
        now = target
    }

    /// Sends a host message on the current attempt.
    mutating func host(_ message: HostMessage) { handle(.textReceived(attempt: attempt, message.encode())) }

    /// Sends raw text on the current attempt.
    mutating func host(raw text: String) { handle(.textReceived(attempt: attempt, text)) }

    mutating func nextSeq() -> Int {
        seq += 1
        return seq
    }

    /// Opens the current attempt and welcomes it.
    mutating func welcome(
        _ session: String = "s1", resumed: Bool = false, heartbeat: Heartbeat? = nil, binaryUploads: Bool = false
    ) {
        handle(.linkOpened(attempt: attempt))
        host(
            .welcome(
                session: session, resumed: resumed, retentionSeconds: 60, heartbeat: heartbeat,
                binaryUploads: binaryUploads))
    }

    /// The pings sent on an attempt.
    func pings(on attempt: Int) -> Int {
        messages(on: attempt).filter { if case .ping = $0 { true } else { false } }.count
    }

    mutating func present(_ id: String, _ modal: ModalDescription = signIn, uploads: UploadOffer? = nil) {
        host(.present(seq: nextSeq(), id: id, modal: modal, uploads: uploads))
    }

    mutating func dismiss(_ id: String, _ reason: DismissReason = .resolved) {
        host(.dismiss(seq: nextSeq(), id: id, reason: reason))
    }

    /// Drops the link as a network would, and waits out the backoff to the next attempt.
    mutating func drop() {
        handle(.linkClosed(attempt: attempt, code: 1006, reason: ""))
        advance(machine.configuration.policy.cap)
    }

    /// The hello sent on an attempt.
    func hello(on attempt: Int) -> Hello? {
        sent.lazy.filter { $0.attempt == attempt }.compactMap {
            if case .hello(let hello) = $0.message { hello } else { nil }
        }.first
    }

    /// What was sent on an attempt, but the hello.
    func messages(on attempt: Int) -> [ClientMessage] {
        sent.filter {
            guard $0.attempt == attempt else { return false }
            if case .hello = $0.message { return false }
            return true
        }.map(\.message)
    }

    func results(_ id: String) -> [ClientMessage] {
        sent.map(\.message).filter {
            if case .result(id, _) = $0 { true } else if case .failure(id, _, _) = $0 { true } else { false }
        }
    }

    var presents: [ModalForm] { updates.compactMap { if case .present(let form, _) = $0 { form } else { nil } } }
    var represents: [ModalForm] { updates.compactMap { if case .represent(let form) = $0 { form } else { nil } } }
    var ends: [(String, ModalEnd)] {
        updates.compactMap { if case .dismiss(let id, let end) = $0 { (id, end) } else { nil } }
    }
    var statuses: [String] { updates.compactMap { if case .status(_, let text) = $0 { text } else { nil } } }
    var connections: [ConnectionState] {
        updates.compactMap { if case .connection(let state) = $0 { state } else { nil } }
    }
    var skipped: [String] { updates.compactMap { if case .skipped(let why) = $0 { why } else { nil } } }
}
