import RemoteModalLocking
import RemoteModalProtocol

/// Runs a `ClientStateMachine` with an injected link, clock, store and hasher: the client an
/// app (or a test robot) uses.
///
/// ```swift
/// let client = RemoteModalClient(configuration: configuration, link: link)
/// client.start()
/// for await update in client.events {
///     if case .present(let form, _) = update { ... client.answer(form.id, try form.reply(choosing: "OK")) }
/// }
/// ```
///
/// Every input (link events, timers, the app's calls, file reads) goes through one ordered
/// inbox handled by one task, so the machine sees them one at a time. Bounds: `events`
/// buffers at most `eventBuffer` updates for a slow reader (older ones are kept, newer ones
/// dropped); host frames waiting in the inbox at most `ClientLimits.queuedBytes` and
/// `queuedFrames`, and arriving at most `framesPerSecond` (past any of them the link is
/// dropped, what it queued is dropped unhandled, and the session resumed from the last `seq`
/// handled); one chunk read at a time.
public final class RemoteModalClient: Sendable {
    enum Input: Sendable {
        case event(ClientEvent)
        case text(attempt: Int, String)
        case overflow(attempt: Int)
        case timer(ClientTimer, token: Int)
        case files(id: String, [any ClientFile])
    }

    struct Read: Sendable {
        var id: String
        var file: any ClientFile
        var index: Int
        var offset: Int
        var length: Int
    }

    struct Mirror {
        var forms: [ModalForm] = []
        var connected = false
        var session: String?
    }

    /// The most updates `events` buffers for a reader that does not keep up.
    public static let eventBuffer = 4_096

    /// What the app hears, in order. Finishes after `stop()`.
    public let events: AsyncStream<ClientUpdate>
    private let updates: AsyncStream<ClientUpdate>.Continuation
    private let inboxStream: AsyncStream<Input>
    private let inbox: AsyncStream<Input>.Continuation
    private let readStream: AsyncStream<Read>
    private let reads: AsyncStream<Read>.Continuation
    private let queued = QueueMeter()
    private let mirror = Locked(Mirror())
    private let tasks = Locked<[Task<Void, Never>]>([])
    private let configuration: ClientConfiguration
    private let link: any ClientLink
    private let store: any ClientStore
    private let clock: any ClientClock
    private let hasher: any FileHasher
    private let jitter: @Sendable () -> Double

    /// Creates a client; it does nothing before `start()`.
    /// - Parameters:
    ///   - configuration: Who it is, its policy and bounds.
    ///   - link: How it reaches the host.
    ///   - store: Where it keeps its session and kept answers (default: memory).
    ///   - clock: Its timers' time.
    ///   - hasher: How picked files are hashed.
    ///   - jitter: Numbers in 0..<1 for the backoff.
    public init(
        configuration: ClientConfiguration, link: any ClientLink, store: any ClientStore = MemoryClientStore(),
        clock: any ClientClock = ContinuousClientClock(), hasher: any FileHasher = SHA256FileHasher(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        var configuration = configuration
        if !link.sendsBinaryFrames { configuration.binaryUploads = false }
        self.configuration = configuration
        self.link = link
        self.store = store
        self.clock = clock
        self.hasher = hasher
        self.jitter = jitter
        (events, updates) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.eventBuffer))
        (inboxStream, inbox) = AsyncStream.makeStream()
        (readStream, reads) = AsyncStream.makeStream()
    }

    deinit {
        inbox.finish()
        reads.finish()
        updates.finish()
    }

    /// Loads the store and starts connecting. Call once.
    public func start() {
        let run = Task { [self] in await self.run() }
        let reader = Task { [readStream, inbox] in
            for await read in readStream {
                do {
                    let bytes = try await read.file.read(offset: read.offset, length: read.length)
                    inbox.yield(.event(.chunkRead(id: read.id, file: read.index, offset: read.offset, bytes: bytes)))
                } catch {
                    inbox.yield(.event(.chunkReadFailed(id: read.id, file: read.index, message: "\(error)")))
                }
            }
        }
        tasks.withLock { $0 += [run, reader] }
    }

    /// Answers a modal (kept until its `dismiss`, re-sent after a resume).
    /// - Parameters:
    ///   - id: The modal's id.
    ///   - reply: The answer or failure.
    public func answer(_ id: String, _ reply: FormReply) { inbox.yield(.event(.answered(id: id, reply))) }

    /// Answers a form by choosing one of its choices with its fields as filled.
    /// - Parameters:
    ///   - form: The form.
    ///   - choice: The choice, by title or role.
    /// - Throws: `FormError` when the form refuses (no such choice, disabled, a field to fix).
    public func answer(_ form: ModalForm, choosing choice: ChoiceKey) throws(FormError) {
        answer(form.id, try form.reply(choosing: choice))
    }

    /// Taps a control.
    /// - Parameter control: Its id.
    public func tap(_ control: String) { inbox.yield(.event(.tapped(control: control))) }

    /// Reports an alert's text fields as typed (throttled to 10 a second).
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - textFields: Every field's text, in order.
    public func type(_ id: String, textFields: [String]) { inbox.yield(.event(.typed(id: id, textFields: textFields))) }

    /// Picks files for a picker: hashes them, uploads them, then answers with them.
    /// - Parameters:
    ///   - id: The picker's id.
    ///   - files: The files (empty: the person picked nothing).
    public func pick(_ id: String, files: [any ClientFile]) { inbox.yield(.files(id: id, files)) }

    /// Goes on with an upload the host refused, from what it acknowledged.
    /// - Parameter id: The picker's id.
    public func retryUpload(_ id: String) { inbox.yield(.event(.retryUpload(id: id))) }

    /// Connects now (after a refusal that stopped retrying, or instead of waiting).
    public func retryNow() { inbox.yield(.event(.retryNow)) }

    /// Closes for good; `events` finishes.
    public func stop() { inbox.yield(.event(.stop)) }

    /// The modals shown now.
    public var forms: [ModalForm] { mirror.withLock { $0.forms } }

    /// Whether a welcomed connection is up.
    public var isConnected: Bool { mirror.withLock { $0.connected } }

    private func run() async {
        var machine = ClientStateMachine(configuration: configuration, jitter: jitter)
        var timers: [ClientTimer: (token: Int, task: Task<Void, Never>)] = [:]
        var files: [String: [any ClientFile]] = [:]
        var token = 0
        let snapshot = await store.load().flatMap(ClientSnapshot.decode)
        var pending: [ClientEvent] = [.storeLoaded(snapshot)]
        var iterator = inboxStream.makeAsyncIterator()
        while true {
            for event in pending {
                let actions = machine.handle(event)
                for action in actions {
                    switch action {
                    case .openLink(let attempt):
                        open(attempt)
                    case .send(let attempt, let text):
                        link.send(text, attempt: attempt)
                    case .sendBinary(let attempt, let bytes):
                        link.send(binary: bytes, attempt: attempt)
                    case .closeLink(let attempt, let code, let reason):
                        link.close(attempt: attempt, code: code, reason: reason)
                    case .startTimer(let timer, let seconds):
                        timers[timer]?.task.cancel()
                        token += 1
                        let mine = token
                        let task = Task { [clock, inbox] in
                            guard (try? await clock.sleep(seconds: seconds)) != nil else { return }
                            inbox.yield(.timer(timer, token: mine))
                        }
                        timers[timer] = (mine, task)
                    case .cancelTimer(let timer):
                        timers.removeValue(forKey: timer)?.task.cancel()
                    case .readChunk(let id, let index, let offset, let length):
                        if let file = files[id]?[safe: index] {
                            reads.yield(Read(id: id, file: file, index: index, offset: offset, length: length))
                        } else {
                            inbox.yield(.event(.chunkReadFailed(id: id, file: index, message: "the file is gone")))
                        }
                    case .releaseFiles(let id):
                        files[id] = nil
                    case .persist(let snapshot):
                        await store.save(snapshot.encoded())
                    case .emit(let update):
                        updates.yield(update)
                    }
                }
                mirror.withLock {
                    $0 = Mirror(forms: machine.forms, connected: machine.isConnected, session: machine.sessionID)
                }
                if event == .stop {
                    for timer in timers.values { timer.task.cancel() }
                    updates.finish()
                    reads.finish()
                    inbox.finish()
                    return
                }
            }
            pending = []
            guard let input = await iterator.next() else { return }
            switch input {
            case .event(let event):
                pending = [event]
            case .text(let attempt, let text):
                let dropped = queued.withLock { state in
                    state.bytes -= text.utf8.count
                    state.frames -= 1
                    return state.overflowed.contains(attempt)
                }
                // The attempt overflowed: what it queued is dropped unhandled (the resume
                // recovers it), so a flood's backlog costs nothing once the flood ends.
                if dropped { continue }
                pending = [.textReceived(attempt: attempt, text)]
            case .overflow(let attempt):
                // The host sends faster than this client handles: the machine drops the link,
                // says so and resumes.
                pending = [.overwhelmed(attempt: attempt)]
            case .timer(let timer, let mine):
                guard timers[timer]?.token == mine else { continue }
                timers[timer] = nil
                pending = [.timerFired(timer)]
            case .files(let id, let picked):
                files[id] = picked
                let task = Task { [hasher, inbox, updates] in
                    do {
                        var infos: [PickedFileInfo] = []
                        for file in picked {
                            infos.append(
                                PickedFileInfo(
                                    name: file.name, mimeType: file.mimeType, size: file.size,
                                    sha256: try await hasher.sha256(of: file)))
                        }
                        inbox.yield(.event(.picked(id: id, files: infos)))
                    } catch {
                        updates.yield(.uploadStopped(id: id, message: "A file could not be read: \(error)"))
                    }
                }
                tasks.withLock { $0.append(task) }
            }
        }
    }

    private func open(_ attempt: Int) {
        let limit = configuration.limits
        link.open(attempt: attempt) { [inbox, queued] event in
            switch event {
            case .opened:
                inbox.yield(.event(.linkOpened(attempt: attempt)))
            case .text(let text):
                let bytes = text.utf8.count
                guard bytes <= limit.messageBytes else {
                    inbox.yield(.event(.oversizedReceived(attempt: attempt, bytes: bytes)))
                    return
                }
                let now = ContinuousClock.now
                let verdict: Bool? = queued.withLock { state in
                    if state.overflowed.contains(attempt) { return nil }
                    guard state.bytes + bytes <= limit.queuedBytes, state.frames < limit.queuedFrames,
                        state.rate.admit(attempt: attempt, at: now, perSecond: limit.framesPerSecond)
                    else {
                        state.overflowed.insert(attempt)
                        return false
                    }
                    state.bytes += bytes
                    state.frames += 1
                    return true
                }
                switch verdict {
                case true?: inbox.yield(.text(attempt: attempt, text))
                case false?: inbox.yield(.overflow(attempt: attempt))
                case nil: break
                }
            case .closed(let code, let reason):
                inbox.yield(.event(.linkClosed(attempt: attempt, code: code, reason: reason)))
            case .failed(let failure):
                inbox.yield(.event(.linkFailed(attempt: attempt, failure)))
            }
        }
    }
}

/// The host frames in the inbox, shared with the link's callbacks.
final class QueueMeter: Sendable {
    struct Counts {
        var bytes = 0
        var frames = 0
        /// Attempts that overflowed: what they queued is dropped unhandled.
        var overflowed: Set<Int> = []
        /// The frames the link delivered lately.
        var rate = FrameRate()
    }

    let state = Locked(Counts())

    func withLock<T>(_ body: (inout Counts) -> T) -> T { state.withLock { body(&$0) } }
}

/// A bucket of `perSecond` frames, refilled at `perSecond` a second, one per attempt: a host
/// that sends faster than that for long is flooding, whether or not this client keeps up (a
/// client that keeps up hides the backlog in the sockets' buffers, handled for seconds after
/// the flood ends).
struct FrameRate {
    private var attempt = 0
    private var tokens = 0.0
    private var refilled = ContinuousClock.now

    /// Takes one frame of the attempt's budget; false when there is none left.
    mutating func admit(attempt: Int, at now: ContinuousClock.Instant, perSecond: Int) -> Bool {
        let capacity = Double(perSecond)
        if attempt != self.attempt {
            self.attempt = attempt
            tokens = capacity
        } else {
            let elapsed = refilled.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            tokens = min(capacity, tokens + max(0, seconds) * capacity)
        }
        refilled = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
