import Foundation
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTransport

/// The host's view of one connection. Executor-confined: `@unchecked Sendable` only so
/// closures that hop onto the executor can carry it.
final class ConnectionState: @unchecked Sendable {
    enum Phase {
        case awaitingHello
        case joined(SessionState)
        case closing
    }

    let id: ConnectionID
    let info: ConnectionInfo
    var phase: Phase = .awaitingHello
    var consecutiveErrors = 0
    var bucket: TokenBucket
    var helloTimer: (any Disposable)?
    /// Paces this connection's upload chunks by bytes (acknowledgements wait while it is spent).
    var uploadPacer: UploadPacer
    /// Acknowledgements held back by the pacer, oldest first; its count is the number of
    /// chunks the client has unacknowledged as far as the host can tell.
    var heldAcks: [HeldAck] = []
    var ackTimer: (any Disposable)?
    /// A `hello` waiting for a later loop turn (`helloMicrosecondsPerTurn`), and what the
    /// client sent after it meanwhile (handled after it, in order).
    var queuedHello: Hello?
    var heldMessages: [ClientMessage] = []

    init(id: ConnectionID, info: ConnectionInfo, bucket: TokenBucket, uploadPacer: UploadPacer) {
        self.id = id
        self.info = info
        self.bucket = bucket
        self.uploadPacer = uploadPacer
    }

    var session: SessionState? {
        if case .joined(let session) = phase { return session }
        return nil
    }
}

/// The host's view of one session. Executor-confined: `@unchecked Sendable` only so
/// closures that hop onto the executor can carry it.
final class SessionState: @unchecked Sendable {
    let id: String
    var client: ClientDescription
    var capabilities: Set<String>
    var connections: [ConnectionID] = []
    var nextSeq = 1
    var nextModalNumber = 1
    /// Pending modal ids in the order they were first presented.
    var pendingOrder: [String] = []
    var pending: [String: Presentation] = [:]
    var controls: [ControlItem] = []
    /// The latest statuses (at most `RecentStatus.kept`), sent again on a resume to a client
    /// that had not processed them (`resume.lastSeq`).
    var recentStatuses: [RecentStatus] = []
    /// The last two distinct controls lists and their encoded `items`, newest first: a
    /// flow's controls flip between idle and busy, and encoding every item each time was a
    /// tenth of the demo cycle.
    var controlsEncodings: [(items: [ControlItem], json: [UInt8])] = []
    /// How recent modals ended, so a duplicate answer can be re-confirmed (the last 64:
    /// a client only re-sends answers it had in flight when its connection dropped).
    var ended = EndedModals()
    var retentionTimer: (any Disposable)?
    var alive = true
    let handle: Session
    /// The client address that created the session (per-address caps count it there).
    let address: String
    /// Which grant admitted it: an index into the token grants, -1 for the single access
    /// token, `nil` without authentication. A resume must come with the same grant.
    let grant: Int?
    /// When its last connection closed, as a count of such events on the host (`nil`
    /// while connected); eviction takes the lowest.
    var disconnectOrder: Int?
    /// The session's key in cluster membership: a one-way function of the id.
    lazy var memberKey = ClusterState.memberKey(id)

    init(
        id: String, client: ClientDescription, capabilities: Set<String>, handle: Session, address: String,
        grant: Int?
    ) {
        self.id = id
        self.client = client
        self.capabilities = capabilities
        self.handle = handle
        self.address = address
        self.grant = grant
    }

    /// The modals pending here that a given session requested (group presentations).
    func pendingCount(requestedBy requester: String) -> Int {
        pending.values.reduce(0) { $0 + ($1.requesterID == requester ? 1 : 0) }
    }

    /// Short form of the id for logs (never the whole secret).
    var shortID: String { String(id.prefix(6)) + "…" }

    func takeSeq() -> Int {
        defer { nextSeq += 1 }
        return nextSeq
    }

    func allocateModalID() -> String {
        defer { nextModalNumber += 1 }
        return "m\(nextModalNumber)"
    }

    /// Whether an id was ever handed out in this session.
    func wasPresented(_ id: String) -> Bool {
        guard id.hasPrefix("m"), let number = Int(id.dropFirst()) else { return false }
        return number >= 1 && number < nextModalNumber
    }

    func addPending(_ modalID: String, _ presentation: Presentation) {
        pending[modalID] = presentation
        pendingOrder.append(modalID)
    }

    func removePending(_ modalID: String) {
        pending[modalID] = nil
        pendingOrder.removeAll { $0 == modalID }
    }

    /// Remembers how a modal ended (the last 64 of them).
    func recordEnded(_ modalID: String, _ reason: DismissReason) {
        guard let number = Int(modalID.dropFirst()) else { return }
        ended.record(number, reason)
    }

    /// How a recently ended modal ended, or `nil` when it is not among the last 64.
    func endedReason(_ modalID: String) -> DismissReason? {
        guard modalID.hasPrefix("m"), let number = Int(modalID.dropFirst()) else { return nil }
        return ended.reason(of: number)
    }
}

/// The last `capacity` ended modals of a session, as (number, reason) packed in a ring of
/// fixed size (512 bytes) allocated when the session's first modal ends, so an idle session
/// that never saw one holds none: its memory does not change as modals come and go, and a
/// lookup (only for a duplicate answer) scans 64 words.
struct EndedModals {
    /// How many are remembered.
    static let capacity = 64
    private var slots: [UInt64] = []
    private var next = 0
    private static let reasons = DismissReason.allCases

    /// Whether the ring has been allocated (tests: not before the first modal ends).
    var isAllocated: Bool { !slots.isEmpty }

    /// Records that modal `number` (1 or more) ended for `reason`.
    mutating func record(_ number: Int, _ reason: DismissReason) {
        if slots.isEmpty { slots = [UInt64](repeating: 0, count: Self.capacity) }
        let index = Self.reasons.firstIndex(of: reason) ?? 0
        slots[next] = UInt64(number) << 8 | UInt64(index)
        next = (next + 1) % Self.capacity
    }

    /// The reason modal `number` ended, if it is among the remembered ones.
    func reason(of number: Int) -> DismissReason? {
        guard number > 0 else { return nil }
        for slot in slots where slot >> 8 == UInt64(number) {
            return Self.reasons[Int(slot & 0xFF)]
        }
        return nil
    }
}

/// An accepted answer: what the client said, who said it, and any files it uploaded.
struct AcceptedAnswer: Sendable {
    let answer: ModalAnswer
    let session: Session
    let files: [PickedFile]
}

/// What the API layer wants to hear about a presentation. Called on the host executor.
struct PresentationCallbacks: Sendable {
    /// The accepted answer.
    var answered: @Sendable (AcceptedAnswer) -> Void
    /// The presentation failed (client failure, expiry, shutdown, timeout, refusal).
    var failed: @Sendable (any Error) -> Void
    /// An extra check of a result before it is accepted (custom modals decode here); a
    /// message means `bad_message` and the modal stays pending.
    var check: (@Sendable (ModalAnswer) -> String?)? = nil
}

/// How an action's enabled state is decided while the modal is shown.
enum EnabledRule: Sendable {
    /// A rule over the live text field values.
    case textFields(@Sendable ([String]) -> Bool)
    /// A host-side observable.
    case observable(Observable<Bool>)
}

/// One modal being shown: on one session, or on every session of a group.
/// Executor-confined: `@unchecked Sendable` only so closures that hop onto the executor
/// can carry it.
final class Presentation: @unchecked Sendable {
    let description: ModalDescription
    let callbacks: PresentationCallbacks
    let rules: [EnabledRule?]
    var targets: [(session: SessionState, modalID: String)] = []
    var actionStates: [Bool]
    var textFields: [String]
    var finished = false
    var timeout: (any Disposable)?
    /// Subscriptions to the actions' host-side rules; made only when there is one.
    var ruleSubscriptions: CompositeDisposable?
    /// Received upload chunks, for pickers.
    let uploads: UploadAssembly?
    /// Due when the next file in progress loses its reservation (`HostCore.armStallTimer`);
    /// nil while nothing is in progress.
    var stallTimer: (any Disposable)?
    /// When `stallTimer` fires (seconds).
    var stallTimerDue: Double?
    /// The session whose flow asked for a group presentation, if known: the pending limit
    /// of a group member counts per requester, so one member cannot exhaust another.
    var requesterID: String?
    /// The group it was presented to (`Presenter.group`), so that a session joining the group
    /// while it is open is shown it too (`showOpenGroupPresentations`).
    var groupName: String?
    let presentedAt: Date
    /// Its part in the cluster, when it is shown on several hosts.
    var cluster: ClusterLink?
    /// An answer is being claimed in the cluster (later local answers are ignored meanwhile).
    var claiming = false

    init(
        description: ModalDescription, callbacks: PresentationCallbacks, rules: [EnabledRule?], presentedAt: Date,
        uploadBudget: UploadBudget
    ) {
        self.description = description
        self.callbacks = callbacks
        self.rules = rules
        self.actionStates = description.actions?.map { $0.enabled } ?? []
        if case .alert(_, _, let fields, _) = description {
            textFields = fields.map { $0.text ?? "" }
        } else {
            textFields = []
        }
        self.presentedAt = presentedAt
        switch description {
        case .photoPicker(let limit, let filter, let maxBytes, _):
            uploads = UploadAssembly(
                maxBytes: maxBytes, maxFiles: limit == 0 ? 1_000 : max(1, limit), budget: uploadBudget,
                accepted: AcceptedMedia(photoFilter: filter))
        case .mediaPicker(let types, let multiple, let maxBytes, _):
            uploads = UploadAssembly(
                maxBytes: maxBytes, maxFiles: multiple ? 1_000 : 1, budget: uploadBudget,
                accepted: AcceptedMedia(mediaTypes: types))
        default:
            uploads = nil
        }
    }

    /// Actions disabled for one target session whatever their rules say (a request its
    /// sender sees but must not approve), by session id.
    var disabledActions: [String: Set<Int>] = [:]
    /// Why those actions are disabled, said on the copies that have them disabled.
    var disabledExplanation: String?

    /// The action states one target session is shown.
    func actionStates(for sessionID: String?) -> [Bool] {
        guard let sessionID, !disabledActions.isEmpty, let disabled = disabledActions[sessionID] else {
            return actionStates
        }
        return actionStates.enumerated().map { index, enabled in enabled && !disabled.contains(index) }
    }

    /// `currentDescription` as one target session is shown it.
    func currentDescription(for sessionID: String?) -> ModalDescription {
        guard let sessionID, !disabledActions.isEmpty, disabledActions[sessionID] != nil else {
            return currentDescription
        }
        let states = actionStates(for: sessionID)
        let forced = disabledActions[sessionID] ?? []
        func applied(_ actions: [ActionSpec]) -> [ActionSpec] {
            var actions = apply(states, to: actions)
            if let disabledExplanation {
                for index in forced where index < actions.count { actions[index].explanation = disabledExplanation }
            }
            return actions
        }
        switch currentDescription {
        case .alert(let title, let message, let fields, let actions):
            return .alert(title: title, message: message, textFields: fields, actions: applied(actions))
        case .actionSheet(let title, let message, let source, let actions):
            return .actionSheet(title: title, message: message, source: source, actions: applied(actions))
        case let other:
            return other
        }
    }

    /// The description with the current action states and, for an alert, the text last
    /// typed into each field (never a password's), as a resume re-presents it.
    var currentDescription: ModalDescription {
        switch description {
        case .alert(let title, let message, let fields, let actions):
            func shown(_ field: TextFieldSpec, _ text: String) -> Bool {
                field.kind == .password || (text.isEmpty && field.text == nil) || field.text == text
            }
            // Nothing typed and no state changed (a first present): the description as it is.
            if zip(fields, textFields).allSatisfy(shown), unchanged(actions) { return description }
            let typed = zip(fields, textFields).map { field, text in
                var field = field
                if !shown(field, text) { field.text = text }
                return field
            }
            return .alert(title: title, message: message, textFields: typed, actions: applyStates(actions))
        case .actionSheet(let title, let message, let source, let actions):
            return .actionSheet(title: title, message: message, source: source, actions: applyStates(actions))
        default:
            return description
        }
    }

    private func applyStates(_ actions: [ActionSpec]) -> [ActionSpec] {
        unchanged(actions) ? actions : apply(actionStates, to: actions)
    }

    private func unchanged(_ actions: [ActionSpec]) -> Bool {
        actions.count == actionStates.count && zip(actions, actionStates).allSatisfy { $0.enabled == $1 }
    }

    private func apply(_ states: [Bool], to actions: [ActionSpec]) -> [ActionSpec] {
        zip(actions, states).map { action, enabled in
            var action = action
            action.enabled = enabled
            return action
        }
    }
}

/// A status the host sent to a session, kept to send again after a resume.
struct RecentStatus {
    /// How many a session keeps, and the longest text kept (longer ones are not sent again).
    static var kept: Int { 8 }
    static var maxTextBytes: Int { 2_048 }

    let seq: Int
    let level: StatusLevel
    let text: String
}
