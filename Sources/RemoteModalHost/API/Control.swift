import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalReactive
import Synchronization

/// A persistent button of a session. Its taps arrive as ``tap``; its ``enabled`` and ``busy``
/// state is sent to the client whenever it changes (an ``/RemoteModalAction/Action`` binding drives both).
public final class Control: Sendable {
    /// The id the client sends back in `event`.
    public let id: String
    /// The title.
    public let title: String
    /// The style.
    public let style: ActionStyle

    /// The enabled and busy state, and the session told of changes. An object of its own
    /// so that an `Action` binding can hold it without holding the control: a weak
    /// reference to the control gave it a side table, which made every retain of it (the
    /// controls list is walked at each `controls` message) take the runtime's slow path.
    let states: ControlStates
    private let taps = PublishSubject<Void>()
    private let refused = PublishSubject<Void>()
    /// The current `bind(to:)` binding; a new one replaces (and disposes) it.
    let binding = SerialDisposable()

    init(id: String, title: String, style: ActionStyle, session: Session) {
        self.id = id
        self.title = title
        self.style = style
        states = ControlStates(owner: session)
    }

    /// Taps while the control is enabled, on the host executor.
    public var tap: Observable<Void> { taps.asObservable() }

    /// Taps that arrived while the control was disabled (the host ignores them; an
    /// ``/RemoteModalAction/Action`` binding records them as `notEnabled`).
    public var tapWhileDisabled: Observable<Void> { refused.asObservable() }

    /// Whether the control can be tapped. Setting it sends the controls list.
    public var enabled: Bool {
        get { states.current.enabled }
        set { states.update { $0.enabled = newValue } }
    }

    /// Whether the control's flow is running (the client shows a spinner). Setting it
    /// sends the controls list.
    public var busy: Bool {
        get { states.current.busy }
        set { states.update { $0.busy = newValue } }
    }

    /// Sets both states at once, with one `controls` message.
    /// - Parameters:
    ///   - enabled: Whether it can be tapped.
    ///   - busy: Whether its flow is running.
    public func set(enabled: Bool, busy: Bool) {
        states.set(enabled: enabled, busy: busy)
    }

    var item: ControlItem {
        let (enabled, busy) = states.current
        return ControlItem(id: id, title: title, style: style, enabled: enabled, busy: busy)
    }

    func receiveTap() {
        if enabled { taps.onNext(()) } else { refused.onNext(()) }
    }
}

/// A control's enabled and busy state; a change sends the owning session's controls.
final class ControlStates: Sendable {
    private let state = Locked<(enabled: Bool, busy: Bool)>((true, false))
    private let owner: Session

    init(owner: Session) {
        self.owner = owner
    }

    var current: (enabled: Bool, busy: Bool) { state.withLock { $0 } }

    func set(enabled: Bool, busy: Bool) {
        update {
            $0.enabled = enabled
            $0.busy = busy
        }
    }

    func update(_ change: (inout (enabled: Bool, busy: Bool)) -> Void) {
        let changed = state.withLock { state -> Bool in
            let before = state
            change(&state)
            return before != state
        }
        if changed { owner.publishControls() }
    }
}
