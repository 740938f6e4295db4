import Foundation

/// A complete WebSocket message (fragments already reassembled).
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message, valid UTF-8.
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The message's payload size in bytes.
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}

/// A WebSocket close status code (RFC 6455, section 7.4). Codes may grow, so this is a
/// struct with static members rather than an enum.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public let rawValue: UInt16

    /// Wraps a numeric code.
    /// - Parameter rawValue: The code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: normal closure.
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (host shutting down).
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: protocol error.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1003: unacceptable data type.
    public static let unsupportedData = CloseCode(rawValue: 1003)
    /// 1005: no status was received (never sent on the wire).
    public static let noStatus = CloseCode(rawValue: 1005)
    /// 1006: the connection dropped without a close frame (never sent on the wire).
    public static let abnormal = CloseCode(rawValue: 1006)
    /// 1007: invalid payload (for example text that is not UTF-8).
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: policy violation.
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: message too big.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1011: internal error.
    public static let internalError = CloseCode(rawValue: 1011)
    /// 1013: the server is at a limit; the client may try again later.
    public static let tryAgainLater = CloseCode(rawValue: 1013)

    /// The numeric code.
    public var description: String { String(rawValue) }
}

/// Identifies one connection of a server or client for its whole life. Ids are never
/// reused within a process.
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number.
    public let rawValue: UInt64

    /// Wraps a number.
    /// - Parameter rawValue: The number.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Orders by number.
    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#N`.
    public var description: String { "#\(rawValue)" }
}
