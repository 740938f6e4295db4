import Foundation
import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalReactive
import Synchronization

/// One client session: what flows present on, where controls and notices live.
///
/// A session outlives a dropped connection for the retention period; `ended` fires when
/// it expires or the host shuts down, and `disposeBag` is disposed then, ending every
/// flow tied to it.
public final class Session: Sendable, Hashable, CustomStringConvertible {
    /// The session id: a bearer secret. Never log it whole (`description` is shortened).
    public let id: String
    /// Who the client said it is in its first `hello`.
    public let client: ClientDescription
    /// Disposed when the session ends: put the session's flows here.
    public let disposeBag = DisposeBag()

    let core: HostCore
    private let controlsState = Locked<[Control]>([])
    private let endedSubject = ReplaySubject<Void>.create(bufferSize: 1)
    private let controlItems = BehaviorRelay<[ControlItem]>(value: [])
    private let controlsDirty = Atomic<Bool>(false)
    /// Root coordinators started with `coordinate(to:)`, kept until their flow ends.
    let roots = Locked<[UUID: AnyObject]>([:])

    init(id: String, client: ClientDescription, core: HostCore) {
        self.id = id
        self.client = client
        self.core = core
    }

    /// The shortened id, safe for logs.
    public var description: String { "session \(id.prefix(6))…" }

    /// Sessions are equal when their ids are.
    public static func == (lhs: Session, rhs: Session) -> Bool { lhs.id == rhs.id }

    /// Hashes the id.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Emits once and completes when the session ends (expiry or host shutdown).
    public var ended: Observable<Void> { endedSubject.take(1) }

    /// The session's controls as sent to the client, each time they change.
    public var controls: Observable<[ControlItem]> { controlItems.asObservable() }

    /// A presenter for this session.
    public var presenter: Presenter { .session(self) }

    /// Sends a status notice (shown as a toast or a status line).
    /// - Parameters:
    ///   - text: The notice.
    ///   - level: `info`, `success` or `error`.
    public func notify(_ text: String, level: StatusLevel = .info) {
        core.perform { [core, id] in core.notify(id, text, level) }
    }

    /// Adds a control (a persistent button), or returns the existing one with that id.
    /// - Parameters:
    ///   - id: The control id the client sends back in `event`.
    ///   - title: The title.
    ///   - style: The style.
    /// - Returns: The control.
    @discardableResult
    public func control(_ id: String, title: String, style: ActionStyle = .default) -> Control {
        let control: Control = controlsState.withLock { controls in
            if let existing = controls.first(where: { $0.id == id }) { return existing }
            let control = Control(id: id, title: title, style: style, session: self)
            controls.append(control)
            return control
        }
        publishControls()
        return control
    }

    /// Removes a control and ends its `Action` binding (releasing the action).
    /// - Parameter id: The control id.
    public func removeControl(_ id: String) {
        let removed = controlsState.withLock { controls -> [Control] in
            defer { controls.removeAll { $0.id == id } }
            return controls.filter { $0.id == id }
        }
        // The control owns its bound action: a removed control lets it go.
        for control in removed { control.endBinding() }
        publishControls()
    }

    /// Sends the current controls list, coalesced: changes made together (several
    /// controls added, enabled and busy flipping) go out as one `controls` message.
    func publishControls() {
        guard !controlsDirty.exchange(true, ordering: .acquiringAndReleasing) else { return }
        core.executor.execute { [self] in
            controlsDirty.store(false, ordering: .releasing)
            // The host-wide copy of an equal list, if there is one: sessions showing the same
            // controls share one array (issue 31's memory per idle session).
            let items = core.internedControls(controlsState.withLock { $0.map { $0.item } }).items
            controlItems.accept(items)
            core.setControls(id, items)
        }
    }

    /// Delivers a client's tap (executor).
    func tapped(_ controlID: String) {
        let control = controlsState.withLock { $0.first { $0.id == controlID } }
        // The tap's flow presents, by default, to this session (`Presenter.current`).
        Presenter.withCurrentSession(self) { control?.receiveTap() }
    }

    /// Ends the session's flows (executor).
    func end() {
        endedSubject.onNext(())
        endedSubject.onCompleted()
        disposeBag.dispose()
        // A control's Action binding is a subscription to the action, which may be shared
        // by many sessions and outlive this one: end it with the session.
        let controls = controlsState.withLock { controls -> [Control] in
            defer { controls = [] }
            return controls
        }
        for control in controls { control.endBinding() }
    }

    /// The connected sessions of this session's group (itself included), or just itself
    /// when it has no group.
    public var groupSessions: [Session] {
        core.onExecutor { core.connectedSessions(sameGroupAs: id) }
    }

    /// The capabilities the client advertised in its latest `hello`.
    public var capabilities: Set<String> {
        core.onExecutor { core.capabilities(of: id) }
    }
}
