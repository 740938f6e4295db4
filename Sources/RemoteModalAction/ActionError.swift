/// Why an ``Action`` did not produce elements.
public enum ActionError: Error, Sendable, CustomStringConvertible {
    /// `execute` was called while the action was disabled or already executing; the
    /// work factory was not called.
    case notEnabled
    /// The work failed with this error.
    case underlyingError(any Error)

    /// A readable description.
    public var description: String {
        switch self {
        case .notEnabled: "not enabled"
        case .underlyingError(let error): "underlying error: \(error)"
        }
    }
}
