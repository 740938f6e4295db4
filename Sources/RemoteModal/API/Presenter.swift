/// Where a modal is presented.
public struct Presenter: Sendable {
    enum Target: Sendable {
        case session(Session)
        case group(String)
    }

    let target: Target
    let core: HostCore
    /// Session ids left out of the presentation.
    var excluded: Set<String> = []

    /// On one session (its every connection shows it; the first answer wins). A session
    /// that is disconnected but within retention gets it when it resumes.
    /// - Parameter session: The session.
    /// - Returns: The presenter.
    public static func session(_ session: Session) -> Presenter {
        Presenter(target: .session(session), core: session.core)
    }

    /// On every connected session of a group at once: the first answer wins and the
    /// others get `dismiss` `superseded`.
    /// - Parameters:
    ///   - name: The group name clients give in `hello`.
    ///   - host: The host whose sessions to use.
    /// - Returns: The presenter.
    public static func group(_ name: String, on host: ModalHost) -> Presenter {
        Presenter(target: .group(name), core: host.core)
    }

    /// On every connected session of the group `session` belongs to (or on `session`
    /// alone when it has no group).
    /// - Parameter session: A member of the group.
    /// - Returns: The presenter.
    public static func sameGroup(as session: Session) -> Presenter {
        guard let group = session.client.group else { return .session(session) }
        return Presenter(target: .group(group), core: session.core)
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
