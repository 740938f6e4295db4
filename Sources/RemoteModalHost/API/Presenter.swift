import RemoteModalProtocol
import RemoteModalReactive

/// Where a modal is presented.
///
/// Every ``RemoteModal`` function defaults to `.current`, the session whose flow is
/// running (RxModal's key-window default): inside a control's tap, the host's `sessions`
/// handler, or a dialog action's flow, a modal presents to that session without naming it.
public struct Presenter: Sendable {
    enum Target: Sendable {
        case session(Session)
        case sessionID(String)
        case group(String)
        case current
    }

    let target: Target
    /// `nil` only for `.current`, which finds its host when it is resolved.
    let core: HostCore?
    /// The session on whose behalf a group presentation is made, if known.
    var requester: Session?
    /// Session ids left out of the presentation.
    var excluded: Set<String> = []
    /// Actions disabled for particular sessions, by session id.
    var disabledActions: [String: Set<Int>] = [:]
    /// Why those actions are disabled, in words, shown on the copies that have them disabled.
    var disabledExplanation: String?

    /// The session whose flow runs on this thread or task: set by the host while it
    /// delivers a control's tap, a new session to `sessions`, or a dialog's answer.
    @TaskLocal static var currentSession: Session?

    /// The session whose flow is running, resolved when the modal is subscribed to (not
    /// when this value is made): the session whose control was tapped, whose answer is
    /// being handled, or that the host's `sessions` handler was given. Outside any
    /// session's flow (a timer, another executor hop, a background task without
    /// `withCurrentSession`) the modal fails with `RemoteModalError.missingPresenter`.
    public static var current: Presenter { Presenter(target: .current, core: nil) }

    /// Runs `body` with `session` as the current session, for flows that leave the
    /// host's callbacks (a `Task`, a scheduler hop) and present later without naming it.
    /// - Parameters:
    ///   - session: The session.
    ///   - body: The flow; modals it subscribes to default to `session`.
    /// - Returns: What `body` returns.
    public static func withCurrentSession<T>(_ session: Session, _ body: () throws -> T) rethrows -> T {
        try $currentSession.withValue(session, operation: body)
    }

    /// This presenter with `.current` replaced by the running session (`nil`: none runs).
    func resolved() -> Presenter? {
        guard case .current = target else { return self }
        return Self.currentSession.map { .session($0) }
    }

    /// Presents through the host, resolving `.current` now; without a session to
    /// present on it fails with `missingPresenter`.
    func present(
        _ description: ModalDescription, rules: [EnabledRule?], timeout: Duration?,
        token: PresentationToken? = nil, callbacks: PresentationCallbacks
    ) -> any Disposable {
        guard let presenter = resolved(), let core = presenter.core else {
            callbacks.failed(RemoteModalError.missingPresenter)
            return Disposables.create()
        }
        return core.present(
            presenter, description, rules: rules, timeout: timeout, token: token, callbacks: callbacks)
    }

    /// On one session (its every connection shows it; the first answer wins). A session
    /// that is disconnected but within retention gets it when it resumes.
    /// - Parameter session: The session.
    /// - Returns: The presenter.
    public static func session(_ session: Session) -> Presenter {
        Presenter(target: .session(session), core: session.core)
    }

    /// On the session with this id, on whichever host of the cluster it is connected
    /// (on this host alone without a cluster). The id is a bearer secret: only a flow that
    /// was given it can use it.
    /// - Parameters:
    ///   - id: The session id.
    ///   - host: The host presenting it.
    /// - Returns: The presenter.
    public static func session(id: String, on host: ModalHost) -> Presenter {
        Presenter(target: .sessionID(id), core: host.core)
    }

    /// On every connected session of a group at once, and on a session of this host that
    /// joins the group while it is open: the first answer wins and the
    /// others get `dismiss` `superseded`. In a cluster, the group's sessions on every host
    /// (see ``ModalHostConfiguration/cluster``).
    ///
    /// Each member may have at most `maxPendingModalsPerSession` group presentations
    /// pending per requesting session (`requestedBy`), so one requester cannot fill
    /// another member's screen; without a requester they count against the member's own
    /// limit.
    /// - Parameters:
    ///   - name: The group name clients give in `hello`.
    ///   - host: The host whose sessions to use.
    ///   - requester: The session on whose behalf this is asked, if any.
    /// - Returns: The presenter.
    public static func group(_ name: String, on host: ModalHost, requestedBy requester: Session? = nil) -> Presenter {
        Presenter(target: .group(name), core: host.core, requester: requester)
    }

    /// On every connected session of the group `session` belongs to (or on `session`
    /// alone when it has no group).
    /// - Parameter session: A member of the group.
    /// - Returns: The presenter.
    public static func sameGroup(as session: Session) -> Presenter {
        guard let group = session.client.group else { return .session(session) }
        return Presenter(target: .group(group), core: session.core, requester: session)
    }

    /// The same presenter without one session (a request that its sender must not answer).
    /// When nothing is left the modal fails with `missingPresenter`.
    /// - Parameter session: The session to leave out.
    /// - Returns: The presenter.
    public func excluding(_ session: Session) -> Presenter {
        var presenter = self
        presenter.excluded.insert(session.id)
        return presenter
    }

    /// The same presenter, with some actions disabled on one session's copy whatever their
    /// rules say (the sender of a request sees it but cannot approve it); that session
    /// answering with one of them gets `bad_message`, as for any disabled action.
    /// - Parameters:
    ///   - indices: The actions' positions.
    ///   - session: The session whose copy has them disabled.
    /// - Returns: The presenter.
    public func disablingActions(_ indices: Set<Int>, for session: Session) -> Presenter {
        var presenter = self
        presenter.disabledActions[session.id, default: []].formUnion(indices)
        return presenter
    }

    /// The same presenter, with some actions disabled on one session's copy and the reason
    /// said on that copy: each of them carries `explanation` ("Another screen of the group
    /// must approve it"), which clients show while the action is disabled.
    /// - Parameters:
    ///   - indices: The actions' positions.
    ///   - session: The session whose copy has them disabled.
    ///   - explanation: Why, in the person's words.
    /// - Returns: The presenter.
    public func disablingActions(_ indices: Set<Int>, for session: Session, explanation: String) -> Presenter {
        var presenter = disablingActions(indices, for: session)
        presenter.disabledExplanation = explanation
        return presenter
    }
}
