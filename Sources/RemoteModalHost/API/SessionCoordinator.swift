import RemoteModalCoordinator
import RemoteModalReactive

/// A coordinator that runs in one session: its flows present there.
open class SessionCoordinator<Result: Sendable>: ReactiveCoordinator<Result>, @unchecked Sendable {
    /// The session the flows present on.
    public let session: Session

    /// Creates a coordinator for a session.
    /// - Parameter session: The session.
    public init(session: Session) {
        self.session = session
        super.init()
    }

    /// A presenter for the coordinator's session.
    public var presenter: Presenter { .session(session) }
}
