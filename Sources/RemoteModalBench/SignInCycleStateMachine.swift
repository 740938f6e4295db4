import RemoteModalProtocol

/// One session's side of the demo sign-in cycle (docs/protocol.md, "The demo host"): after
/// `welcome` and the first `controls`, tap `signIn`; expect `controls` with `signIn` busy,
/// `present` of the "Sign in" alert (answered with Cancel), `dismiss` `resolved`, `status`
/// info "Sign in cancelled" and `controls` with `signIn` idle again, each exactly once and
/// in any order except that the busy `controls` comes before the idle one; then tap again.
/// Anything else (an `error`, an `update`, a repeated step, a `seq` that does not increase)
/// is a failure.
struct SignInCycleStateMachine {
    /// What the owner does after a message.
    enum Action: Equatable {
        /// Nothing to send.
        case none
        /// Tap `signIn` (the first time, or again after a completed cycle).
        case tap
        /// Answer the alert `id` with Cancel.
        case cancel(id: String)
        /// The cycle that started at `tappedAt` ended; tap again.
        case completed(tappedAt: Double)
        /// The host broke the cycle; stop and report this.
        case fail(String)
    }

    /// The steps of one cycle.
    struct Steps: OptionSet {
        let rawValue: UInt8
        static let busy = Steps(rawValue: 1)
        static let present = Steps(rawValue: 2)
        static let dismiss = Steps(rawValue: 4)
        static let status = Steps(rawValue: 8)
        static let idle = Steps(rawValue: 16)
        static let all: Steps = [.busy, .present, .dismiss, .status, .idle]
    }

    private enum Phase {
        case awaitingWelcome, awaitingControls, cycling, failed
    }

    private var phase = Phase.awaitingWelcome
    private var lastSeq = 0
    private var seen: Steps = []
    private var modal: String?
    /// When the current cycle's tap was sent (µs).
    private(set) var tappedAt = 0.0
    /// Cycles completed.
    private(set) var cycles = 0

    /// Records that the tap was sent.
    /// - Parameter now: The time (µs).
    mutating func tapped(at now: Double) {
        tappedAt = now
        seen = []
        modal = nil
    }

    /// Handles one message from the host.
    /// - Parameter text: The frame's text.
    /// - Returns: What to do.
    mutating func received(_ text: String) -> Action {
        let message: HostMessage
        do {
            message = try HostMessage.decode(text)
        } catch {
            return fail("undecodable message (\(error)): \(text)")
        }
        if case .error = message { return fail("host error: \(text)") }
        if let seq = message.seq {
            guard seq > lastSeq else { return fail("seq \(seq) after \(lastSeq): \(text)") }
            lastSeq = seq
        }
        switch (phase, message) {
        case (.awaitingWelcome, .welcome):
            phase = .awaitingControls
            return .none
        case (.awaitingControls, .controls(_, let items)):
            guard signIn(in: items) == .idle else { return fail("signIn is not ready: \(text)") }
            phase = .cycling
            return .tap
        case (.cycling, .controls(_, let items)):
            switch signIn(in: items) {
            case .busy: return step(.busy, text)
            case .idle:
                guard seen.contains(.busy) else { return fail("idle controls before the busy ones: \(text)") }
                return step(.idle, text)
            case .missing: return fail("controls without a consistent signIn: \(text)")
            }
        case (.cycling, .present(_, let id, let description, _)):
            guard case .alert(let title, _, let fields, let actions) = description, title == "Sign in",
                fields.map(\.kind) == [.email, .password], actions.first?.title == "Cancel",
                actions.first?.enabled == true
            else { return fail("not the sign-in alert: \(text)") }
            guard !seen.contains(.present) else { return fail("a second present in one cycle: \(text)") }
            modal = id
            seen.insert(.present)  // never the last step: the dismiss needs it first
            return .cancel(id: id)
        case (.cycling, .dismiss(_, let id, let reason)):
            guard seen.contains(.present), id == modal, reason == .resolved else {
                return fail("unexpected dismiss: \(text)")
            }
            return step(.dismiss, text)
        case (.cycling, .status(_, let level, let statusText)):
            guard level == .info, statusText == "Sign in cancelled" else { return fail("unexpected status: \(text)") }
            return step(.status, text)
        default:
            return fail("unexpected message: \(text)")
        }
    }

    private enum ControlState { case idle, busy, missing }

    private func signIn(in items: [ControlItem]) -> ControlState {
        guard let item = items.first(where: { $0.id == "signIn" }) else { return .missing }
        switch (item.busy, item.enabled) {
        case (false, true): return .idle
        case (true, false): return .busy
        default: return .missing
        }
    }

    /// Marks a step seen; a repeated step fails, the last one completes the cycle.
    private mutating func step(_ step: Steps, _ text: String) -> Action {
        guard !seen.contains(step) else { return fail("a step seen twice in one cycle: \(text)") }
        seen.insert(step)
        guard seen == .all else { return .none }
        cycles += 1
        return .completed(tappedAt: tappedAt)
    }

    private mutating func fail(_ reason: String) -> Action {
        phase = .failed
        return .fail(reason)
    }
}
