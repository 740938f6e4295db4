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
    /// The modal the refused message concerned (its `id`), when it named one.
    public var id: String?
    /// For a refused `upload` chunk (or a picker's refused `result`): the file it concerned.
    public var file: Int?
    /// With `file`: the contiguous bytes of that file the host holds after the refusal, so
    /// the offset to send from (0: start the file again).
    public var held: Int?
    /// For a refused `upload` chunk: where the refused chunk started (its `offset`), so that a
    /// client with several chunks in flight knows which one it was.
    public var offset: Int?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The code.
    ///   - message: What is wrong.
    ///   - ref: The refused message's type.
    ///   - id: The modal the refused message concerned.
    ///   - file: The upload file it concerned.
    ///   - held: The bytes of `file` the host holds.
    ///   - offset: The refused chunk's `offset`.
    public init(
        _ code: ErrorCode, _ message: String, ref: String? = nil, id: String? = nil, file: Int? = nil,
        held: Int? = nil, offset: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.ref = ref
        self.id = id
        self.file = file
        self.held = held
        self.offset = offset
    }

    /// The same error, saying which modal it concerns (an `id` it already names stays).
    /// - Parameter modal: The modal id.
    /// - Returns: The error with `id` set.
    public func concerning(_ modal: String?) -> ProtocolError {
        var copy = self
        if copy.id == nil { copy.id = modal }
        return copy
    }

    /// The same error, saying which upload file it concerns and what the host holds of it.
    /// - Parameters:
    ///   - file: The file's index.
    ///   - held: The contiguous bytes held of it.
    /// - Returns: The error with `file` and `held` set.
    public func concerning(file: Int, held: Int) -> ProtocolError {
        var copy = self
        copy.file = file
        copy.held = held
        return copy
    }

    /// The same error, saying which upload chunk it refused (its file and offset) and what
    /// the host holds of that file now.
    /// - Parameters:
    ///   - file: The file's index.
    ///   - offset: The refused chunk's offset.
    ///   - held: The contiguous bytes held of it.
    /// - Returns: The error with `file`, `offset` and `held` set.
    public func concerning(file: Int, offset: Int, held: Int) -> ProtocolError {
        var copy = concerning(file: file, held: held)
        copy.offset = offset
        return copy
    }

    /// The longest modal `id` an error echoes back (host ids are short, `m12`; a longer one
    /// was never presented, and echoing it would make errors an amplifier).
    public static let maxEchoedIDBytes = 64

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
