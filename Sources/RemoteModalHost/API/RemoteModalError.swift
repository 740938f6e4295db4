/// Why a remote modal's sequence failed.
public enum RemoteModalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The client that would show it lacks the capability.
    case unsupported
    /// The presenter resolved to no connected session.
    case missingPresenter
    /// The client refused (`failure` `denied`): for example a permission was not granted.
    case denied(String?)
    /// The person cancelled (`failure` `cancelled`).
    case cancelled
    /// The client failed (`failure` `failed`).
    case failed(String?)
    /// The modal's timeout passed (`dismiss` `timeout`).
    case timeout
    /// The session's retention ran out while the modal was pending.
    case sessionExpired
    /// The host shut down while the modal was pending.
    case hostShutdown
    /// The session already has the most pending modals it may have.
    case tooManyPending
    /// The client's answer could not be decoded into the custom modal's result type.
    case undecodableResult(String)
    /// The modal's configuration cannot be sent (attachments too large, a header field
    /// that is not one); nothing was presented.
    case invalidConfiguration(String)
    /// The presentation had to cross hosts and the cluster's backplane (Redis) is
    /// unreachable: cluster presentations fail at once until the host has reconnected;
    /// presentations on this host's own sessions keep working.
    case clusterUnavailable

    /// A readable description.
    public var description: String {
        switch self {
        case .unsupported: "the client does not support this modal"
        case .missingPresenter:
            "no connected session to present on (Presenter.current names a session only inside its flow:"
                + " a control's tap, the host's sessions handler, a dialog's answer; pass a presenter elsewhere)"
        case .denied(let message): "denied" + (message.map { ": \($0)" } ?? "")
        case .cancelled: "cancelled"
        case .failed(let message): "failed" + (message.map { ": \($0)" } ?? "")
        case .timeout: "timed out"
        case .sessionExpired: "the session expired"
        case .hostShutdown: "the host shut down"
        case .tooManyPending: "too many pending modals"
        case .undecodableResult(let reason): "undecodable result: \(reason)"
        case .invalidConfiguration(let reason): "invalid configuration: \(reason)"
        case .clusterUnavailable: "the cluster backplane is unreachable"
        }
    }
}
