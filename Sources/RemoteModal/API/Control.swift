import Locking
import ModalProtocol
import Reactive
import Synchronization

/// A persistent button of a session. Its taps arrive as `tap`; its `enabled` and `busy`
/// state is sent to the client whenever it changes (an `Action` binding drives both).
public final class Control: Sendable {
    /// The id the client sends back in `event`.
    public let id: String
    /// The title.
    public let title: String
    /// The style.
    public let style: ActionStyle

    private let state = Locked<(enabled: Bool, busy: Bool)>((true, false))
    private let taps = PublishSubject<Void>()
    private let refused = PublishSubject<Void>()
    private let owner = Locked<Session?>(nil)
    /// The current `bind(to:)` binding; a new one replaces (and disposes) it.
    let binding = SerialDisposable()

    init(id: String, title: String, style: ActionStyle, session: Session) {
        self.id = id
        self.title = title
        self.style = style
        owner.withLock { $0 = session }
    }

    /// Taps while the control is enabled, on the host executor.
    public var tap: Observable<Void> { taps.asObservable() }

    /// Taps that arrived while the control was disabled (the host ignores them; an
    /// `Action` binding records them as `notEnabled`).
    public var tapWhileDisabled: Observable<Void> { refused.asObservable() }

    /// Whether the control can be tapped. Setting it sends the controls list.
    public var enabled: Bool {
        get { state.withLock { $0.enabled } }
        set { update { $0.enabled = newValue } }
    }

    /// Whether the control's flow is running (the client shows a spinner). Setting it
    /// sends the controls list.
    public var busy: Bool {
        get { state.withLock { $0.busy } }
        set { update { $0.busy = newValue } }
    }

    /// Sets both states at once, with one `controls` message.
    /// - Parameters:
    ///   - enabled: Whether it can be tapped.
    ///   - busy: Whether its flow is running.
    public func set(enabled: Bool, busy: Bool) {
        update {
            $0.enabled = enabled
            $0.busy = busy
        }
    }

    private func update(_ change: (inout (enabled: Bool, busy: Bool)) -> Void) {
        let changed = state.withLock { state -> Bool in
            let before = state
            change(&state)
            return before != state
        }
        if changed { owner.withLock { $0 }?.publishControls() }
    }

    var item: ControlItem {
        let (enabled, busy) = state.withLock { $0 }
        return ControlItem(id: id, title: title, style: style, enabled: enabled, busy: busy)
    }

    func receiveTap() {
        if enabled { taps.onNext(()) } else { refused.onNext(()) }
    }
}
