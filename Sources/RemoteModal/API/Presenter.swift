/// Where a modal is presented.
public struct Presenter: Sendable {
    enum Target: Sendable {
        case session(Session)
        case sessionID(String)
        case group(String)
    }

    let target: Target
    let core: HostCore
    /// The session on whose behalf a group presentation is made, if known.
    var requester: Session?
    /// Session ids left out of the presentation.
    var excluded: Set<String> = []

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

    /// On every connected session of a group at once: the first answer wins and the
    /// others get `dismiss` `superseded`. In a cluster, the group's sessions on every host
    /// (see `ModalHostConfiguration.cluster`).
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
}
