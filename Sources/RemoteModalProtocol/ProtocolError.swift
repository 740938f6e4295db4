/// An `error` code of the protocol. Codes may grow, so this is a struct with static members.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire form, for example `bad_message`.
    public let rawValue: String

    /// Wraps a wire code.
    /// - Parameter rawValue: The code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The text is not JSON.
    public static let badJSON = ErrorCode(rawValue: "bad_json")
    /// The JSON is not a valid message (missing field, wrong type, out of range).
    public static let badMessage = ErrorCode(rawValue: "bad_message")
    /// The `type` is not one the host knows.
    public static let unknownType = ErrorCode(rawValue: "unknown_type")
    /// The modal id was never presented to this session.
    public static let unknownModal = ErrorCode(rawValue: "unknown_modal")
    /// A message other than `hello` came first.
    public static let helloRequired = ErrorCode(rawValue: "hello_required")
    /// The client speaks another protocol version.
    public static let unsupportedProtocol = ErrorCode(rawValue: "unsupported_protocol")
    /// An upload broke the rules (offsets, size, hash).
    public static let uploadInvalid = ErrorCode(rawValue: "upload_invalid")
    /// The connection sends faster than its allowance.
    public static let rateLimited = ErrorCode(rawValue: "rate_limited")
    /// The chosen action is disabled for the answer's own text fields.
    public static let actionDisabled = ErrorCode(rawValue: "action_disabled")
    /// The token does not allow this (a group it does not grant).
    public static let unauthorized = ErrorCode(rawValue: "unauthorized")

    /// Every code of protocol version 1.
    public static let all: [ErrorCode] = [
        .badJSON, .badMessage, .unknownType, .unknownModal, .helloRequired, .unsupportedProtocol, .uploadInvalid,
        .rateLimited, .actionDisabled, .unauthorized,
    ]

    /// The wire form.
    public var description: String { rawValue }
}

/// Why an incoming message was refused: the `error` message the host answers with.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The code.
    public let code: ErrorCode
    /// A message naming the field or problem.
    public let message: String
    /// The `type` of the refused message, when known.
    public let ref: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The code.
    ///   - message: What is wrong.
    ///   - ref: The refused message's type.
    public init(_ code: ErrorCode, _ message: String, ref: String? = nil) {
        self.code = code
        self.message = message
        self.ref = ref
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// A `bad_message` naming a missing field.
    static func missing(_ field: String, in type: String?) -> ProtocolError {
        ProtocolError(.badMessage, "field '\(field)' is missing", ref: type)
    }

    /// A `bad_message` naming a field of the wrong type.
    static func wrongType(_ field: String, expected: String, in type: String?) -> ProtocolError {
        ProtocolError(.badMessage, "field '\(field)' must be \(expected)", ref: type)
    }
}
