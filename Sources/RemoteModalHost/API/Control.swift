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
    /// The tap subjects, made when first asked for, and the current binding. One lock for
    /// all: an idle session's controls are most of its memory (issue 31), and a control
    /// bound lazily (`bind(lazily:)`) needs no subject at all.
    private let wiring = Locked(Wiring())

    struct Wiring {
        var taps: PublishSubject<Void>?
        var refused: PublishSubject<Void>?
        /// The current `bind` binding; a new one replaces (and disposes) it.
        var binding: (any Disposable)?
        /// What the current binding does with a tap without subscribing to the subjects.
        var handler: (any ControlTapHandler)?
        /// The binding was ended (control removed, session ended): later ones end at once.
        var ended = false
    }

    init(id: String, title: String, style: ActionStyle, session: Session) {
        self.id = id
        self.title = title
        self.style = style
        states = ControlStates(owner: session)
    }

    /// Taps while the control is enabled, on the host executor.
    public var tap: Observable<Void> {
        wiring.withLock { wiring in
            if let taps = wiring.taps { return taps }
            let taps = PublishSubject<Void>()
            wiring.taps = taps
            return taps
        }.asObservable()
    }

    /// Taps that arrived while the control was disabled (the host ignores them; an
    /// ``/RemoteModalAction/Action`` binding records them as `notEnabled`).
    public var tapWhileDisabled: Observable<Void> {
        wiring.withLock { wiring in
            if let refused = wiring.refused { return refused }
            let refused = PublishSubject<Void>()
            wiring.refused = refused
            return refused
        }.asObservable()
    }

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
        let isEnabled = enabled
        let (subject, handler) = wiring.withLock { ((isEnabled ? $0.taps : $0.refused), $0.handler) }
        handler?.tapped(enabled: isEnabled)
        subject?.onNext(())
    }

    /// Makes `binding` the control's binding, disposing the one before (or `binding` itself
    /// when the control's bindings have ended).
    func replaceBinding(_ binding: any Disposable, handler: (any ControlTapHandler)? = nil) {
        let old: (any Disposable)? = wiring.withLock { wiring in
            if wiring.ended { return binding }
            defer {
                wiring.binding = binding
                wiring.handler = handler
            }
            return wiring.binding
        }
        old?.dispose()
    }

    /// Ends the current binding, and any made later (the control was removed or its session
    /// ended).
    func endBinding() {
        let old: (any Disposable)? = wiring.withLock { wiring in
            wiring.ended = true
            wiring.handler = nil
            defer { wiring.binding = nil }
            return wiring.binding
        }
        old?.dispose()
    }
}

/// What a binding does with its control's taps, called by the control directly: a lazy
/// binding needs no subscription to the control's subjects.
protocol ControlTapHandler: Sendable {
    /// A tap arrived; `enabled` is whether the control was enabled then.
    func tapped(enabled: Bool)
}

/// A control's enabled and busy state; a change sends the owning session's controls.
/// The two flags in one atomic byte (bit 0 enabled, bit 1 busy): no lock object per control.
final class ControlStates: Sendable {
    private let state = Atomic<UInt8>(1)
    private let owner: Session

    init(owner: Session) {
        self.owner = owner
    }

    private static func decode(_ bits: UInt8) -> (enabled: Bool, busy: Bool) { (bits & 1 != 0, bits & 2 != 0) }
    private static func encode(_ state: (enabled: Bool, busy: Bool)) -> UInt8 {
        (state.enabled ? 1 : 0) | (state.busy ? 2 : 0)
    }

    var current: (enabled: Bool, busy: Bool) { Self.decode(state.load(ordering: .acquiring)) }

    func set(enabled: Bool, busy: Bool) {
        update {
            $0.enabled = enabled
            $0.busy = busy
        }
    }

    func update(_ change: (inout (enabled: Bool, busy: Bool)) -> Void) {
        var before = state.load(ordering: .acquiring)
        while true {
            var next = Self.decode(before)
            change(&next)
            let bits = Self.encode(next)
            guard bits != before else { return }
            let (exchanged, original) = state.compareExchange(
                expected: before, desired: bits, ordering: .acquiringAndReleasing)
            if exchanged { break }
            before = original
        }
        owner.publishControls()
    }
}
