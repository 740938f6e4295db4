import RemoteModalProtocol

/// What a client keeps across its own restart: the session to resume and every answer
/// not yet confirmed by its `dismiss` (the outbox). Stored as text by a `ClientStore`.
public struct ClientSnapshot: Sendable, Equatable {
    /// The session to resume, if any. A bearer secret: stores keep it where the app keeps secrets.
    public var session: String?
    /// The retention the host announced for it, in seconds.
    public var retentionSeconds: Int
    /// The answers (`result` or `failure`) waiting for their `dismiss`, oldest first.
    public var outbox: [ClientMessage]

    /// Creates a snapshot.
    /// - Parameters:
    ///   - session: The session.
    ///   - retentionSeconds: Its retention.
    ///   - outbox: The kept answers.
    public init(session: String?, retentionSeconds: Int = 60, outbox: [ClientMessage] = []) {
        self.session = session
        self.retentionSeconds = retentionSeconds
        self.outbox = outbox
    }

    /// The snapshot as JSON text: `{"session":...,"retentionSeconds":60,"outbox":["{...}"]}`.
    /// - Returns: The text.
    public func encoded() -> String {
        var writer = JSONWriter()
        writer.raw("{\"session\":")
        writer.optionalString(session)
        writer.raw(",\"retentionSeconds\":")
        writer.int(retentionSeconds)
        writer.raw(",\"outbox\":")
        writer.strings(outbox.map { $0.encode() })
        writer.raw("}")
        return writer.output
    }

    /// Reads a snapshot written by `encoded()`; answers that do not decode are left out.
    /// - Parameter text: The stored text.
    /// - Returns: The snapshot, or `nil` when the text is not a snapshot.
    public static func decode(_ text: String) -> ClientSnapshot? {
        guard let json = try? JSONParser().parse(text), case .object = json else { return nil }
        let outbox = (json["outbox"]?.arrayValue ?? []).prefix(ClientLimits.default.outbox).compactMap {
            (entry: JSONValue) -> ClientMessage? in
            guard let text = entry.stringValue, let message = try? ClientMessage.decode(text) else { return nil }
            switch message {
            case .result, .failure: return message
            default: return nil
            }
        }
        return ClientSnapshot(
            session: json["session"]?.stringValue, retentionSeconds: json["retentionSeconds"]?.intValue ?? 60,
            outbox: Array(outbox))
    }
}
