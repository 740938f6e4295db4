/// The `client` object of `hello`.
public struct ClientDescription: Sendable, Equatable {
    /// Free text: `browser`, `kiosk`, ...
    public var kind: String
    /// A name for logs and notices (`lobby-1`).
    public var name: String
    /// The group the client belongs to, if any.
    public var group: String?

    /// The most bytes of UTF-8 a `hello` may give for `name` and for `group` (`bad_message`
    /// beyond): both are shown to, and sent to, other clients.
    public static let maxNameBytes = 256

    /// The most bytes of UTF-8 a `hello` may give for `kind` (`bad_message` beyond): a
    /// cluster tells every other host each session's kind.
    public static let maxKindBytes = 64

    /// Creates a description.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - name: The name.
    ///   - group: The group.
    public init(kind: String, name: String, group: String? = nil) {
        self.kind = kind
        self.name = name
        self.group = group
    }
}

/// The `hello` message.
public struct Hello: Sendable, Equatable {
    /// The protocol version the client speaks.
    public var protocolVersion: Int
    /// Who the client is.
    public var client: ClientDescription
    /// The modal kinds it can show (`alert`, `custom:signature`, ...).
    public var capabilities: [String]
    /// The access token, if any.
    public var token: String?

    /// The most capabilities a `hello` may list (`bad_message` beyond): a cluster tells every
    /// other host each session's capabilities, so they are bounded like names.
    public static let maxCapabilities = 32
    /// The most bytes of UTF-8 of one capability (`bad_message` beyond).
    public static let maxCapabilityBytes = 64

    /// The session to resume, if any.
    public var resumeSession: String?
    /// With ``resumeSession``: the highest `seq` the client processed, so that the host can send
    /// again the statuses it sent after it (the client's connection may have died with them).
    public var resumeLastSeq: Int?

    /// Creates a hello.
    /// - Parameters:
    ///   - protocolVersion: The protocol version.
    ///   - client: Who the client is.
    ///   - capabilities: The kinds it can show.
    ///   - token: The access token.
    ///   - resumeSession: The session to resume.
    ///   - resumeLastSeq: The highest `seq` processed in that session.
    public init(
        protocolVersion: Int = 1, client: ClientDescription, capabilities: [String], token: String? = nil,
        resumeSession: String? = nil, resumeLastSeq: Int? = nil
    ) {
        self.protocolVersion = protocolVersion
        self.client = client
        self.capabilities = capabilities
        self.token = token
        self.resumeSession = resumeSession
        self.resumeLastSeq = resumeLastSeq
    }
}

/// The `failure` codes a client may answer with. The host refuses any other (`bad_message`):
/// it must know what the answer means.
public enum FailureCode: String, Sendable, Equatable, CaseIterable {
    /// The person cancelled.
    case cancelled
    /// The client cannot show this modal after all.
    case unsupported
    /// The client is not allowed to (permissions).
    case denied
    /// Something failed on the client.
    case failed
}

/// One chunk of a picked file.
public struct UploadChunk: Sendable, Equatable {
    /// The modal id.
    public var id: String
    /// The file's index in the selection.
    public var file: Int
    /// The file name.
    public var name: String
    /// The MIME type.
    public var mimeType: String
    /// The whole file's size.
    public var size: Int
    /// Where this chunk starts.
    public var offset: Int
    /// The chunk's bytes, base64 (empty when they came raw, in ``bytes``).
    public var data: String
    /// The chunk's bytes as they came in a binary frame (docs/protocol.md, section 7, "Binary
    /// chunks"); `nil` for a chunk sent as text, whose bytes are ``data``.
    public var bytes: [UInt8]?
    /// Whether this is the file's last chunk.
    public var last: Bool

    /// The longest header a binary chunk may carry, in bytes.
    public static let maxBinaryHeaderBytes = 8_192

    /// Creates a chunk.
    /// - Parameters:
    ///   - id: The modal id.
    ///   - file: The file's index.
    ///   - name: The file name.
    ///   - mimeType: The MIME type.
    ///   - size: The file's size.
    ///   - offset: The chunk's offset.
    ///   - data: The bytes, base64 (empty when `bytes` carries them).
    ///   - bytes: The raw bytes of a binary chunk, or `nil`.
    ///   - last: Whether it is the last chunk.
    public init(
        id: String, file: Int, name: String, mimeType: String, size: Int, offset: Int, data: String,
        bytes: [UInt8]? = nil, last: Bool
    ) {
        self.id = id
        self.file = file
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.offset = offset
        self.data = data
        self.bytes = bytes
        self.last = last
    }

    /// The chunk as one binary frame (docs/protocol.md, section 7, "Binary chunks"): two bytes
    /// of big-endian header length, the header (the `upload` message's JSON without `data`),
    /// then the chunk's raw bytes. Send it only to a host whose `welcome` offered
    /// `binaryUploads`.
    /// - Returns: The frame's payload; the bytes are ``bytes``, or ``data`` decoded when they
    ///   are `nil` (nothing when that is not base64).
    public func binaryFrame() -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\"type\":\"upload\",\"id\":")
        writer.string(id)
        writer.raw(",\"file\":")
        writer.int(file)
        writer.raw(",\"name\":")
        writer.string(name)
        writer.raw(",\"mimeType\":")
        writer.string(mimeType)
        writer.raw(",\"size\":")
        writer.int(size)
        writer.raw(",\"offset\":")
        writer.int(offset)
        writer.raw(",\"last\":")
        writer.bool(last)
        writer.raw("}")
        let header = writer.bytes
        let payload = bytes ?? Base64.decode(data) ?? []
        var frame: [UInt8] = []
        frame.reserveCapacity(2 + header.count + payload.count)
        frame.append(UInt8(truncatingIfNeeded: header.count >> 8))
        frame.append(UInt8(truncatingIfNeeded: header.count))
        frame.append(contentsOf: header)
        frame.append(contentsOf: payload)
        return frame
    }
}

/// Every message a client sends.
public enum ClientMessage: Sendable, Equatable {
    /// The handshake.
    case hello(Hello)
    /// An answer.
    case result(id: String, value: JSONValue)
    /// A failure instead of an answer.
    case failure(id: String, code: FailureCode, message: String?)
    /// The alert's text fields as the person types.
    case input(id: String, textFields: [String])
    /// A chunk of a picked file.
    case upload(UploadChunk)
    /// A tap on a control.
    case event(control: String)
    /// A liveness probe (docs/protocol.md, section 3, "Heartbeat"): the host answers `pong` at once,
    /// echoing `id` when given.
    case ping(id: Int?)

    /// The modal the message concerns, for those that name one.
    public var modalID: String? {
        switch self {
        case .result(let id, _), .failure(let id, _, _), .input(let id, _): id
        case .upload(let chunk): chunk.id
        case .hello, .event, .ping: nil
        }
    }

    /// The message's `type`.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .result: "result"
        case .failure: "failure"
        case .input: "input"
        case .upload: "upload"
        case .event: "event"
        case .ping: "ping"
        }
    }

    /// Decodes one text frame strictly; never traps.
    /// - Parameters:
    ///   - text: The frame's text.
    ///   - parser: The JSON parser and its limits.
    /// - Returns: The message.
    /// - Throws: ``ProtocolError`` with the code docs/protocol.md assigns (`bad_json`,
    ///   `bad_message`, `unknown_type`) and a message naming the field.
    public static func decode(_ text: String, parser: JSONParser = JSONParser()) throws(ProtocolError) -> ClientMessage
    {
        let json: JSONValue
        do {
            json = try parser.parse(text)
        } catch {
            throw ProtocolError(.badJSON, error.description)
        }
        guard case .object = json else { throw ProtocolError(.badMessage, "a message must be a JSON object") }
        guard let typeValue = json["type"] else { throw .missing("type", in: nil) }
        guard let type = typeValue.stringValue else { throw .wrongType("type", expected: "a string", in: nil) }
        do {
            return try decodeFields(Fields(json, type: type), type: type)
        } catch {
            // A refusal of a message about a modal says which modal, when its `id` is one a
            // host could have sent (short): a client that re-sent answers can tell them apart.
            guard ["result", "failure", "input", "upload"].contains(type), let id = json["id"]?.stringValue,
                id.utf8.count <= ProtocolError.maxEchoedIDBytes
            else { throw error }
            throw error.concerning(id)
        }
    }

    /// An `upload`'s fields; `bytes` are a binary chunk's, whose header carries no `data`.
    private static func decodeUpload(_ fields: Fields, bytes: [UInt8]?) throws(ProtocolError) -> UploadChunk {
        UploadChunk(
            id: try fields.string("id"), file: try fields.int("file", in: 0...999),
            name: try fields.string("name"), mimeType: try fields.string("mimeType"),
            size: try fields.int("size"), offset: try fields.int("offset"),
            data: bytes == nil ? try fields.string("data") : "", bytes: bytes, last: try fields.bool("last"))
    }

    /// Decodes one binary frame: an upload chunk in its binary form (docs/protocol.md,
    /// section 7, "Binary chunks"), the only message a binary frame may carry. Never traps.
    /// - Parameters:
    ///   - frame: The frame's payload: two bytes of big-endian header length, the header
    ///     (an `upload` message's JSON object without `data`), then the chunk's bytes.
    ///   - parser: The JSON parser and its limits.
    /// - Returns: The chunk, its ``UploadChunk/bytes`` set.
    /// - Throws: ``ProtocolError``: `bad_message` for a frame that is not a binary chunk
    ///   (saying what is wrong with it), `bad_json` for a header that is not JSON.
    public static func decodeBinary(_ frame: [UInt8], parser: JSONParser = JSONParser()) throws(ProtocolError)
        -> ClientMessage
    {
        try frame.withUnsafeBytes { frame in
            Result { () throws(ProtocolError) -> ClientMessage in try decodeBinary(frame, parser: parser) }
        }.get()
    }

    /// Decodes one binary frame in place (see ``decodeBinary(_:parser:)-([UInt8],_)``); the
    /// chunk's bytes are copied out once.
    /// - Parameters:
    ///   - frame: The frame's payload.
    ///   - parser: The JSON parser and its limits.
    /// - Returns: The chunk, its ``UploadChunk/bytes`` set.
    /// - Throws: ``ProtocolError`` as the other form.
    public static func decodeBinary(_ frame: UnsafeRawBufferPointer, parser: JSONParser = JSONParser())
        throws(ProtocolError) -> ClientMessage
    {
        guard frame.count >= 2 else {
            throw ProtocolError(.badMessage, "a binary frame starts with its header's length in 2 bytes")
        }
        let headerLength = Int(frame[0]) << 8 | Int(frame[1])
        guard headerLength >= 2, headerLength <= UploadChunk.maxBinaryHeaderBytes, 2 + headerLength <= frame.count
        else {
            throw ProtocolError(
                .badMessage,
                "a binary frame's header is 2 to \(UploadChunk.maxBinaryHeaderBytes) bytes within the frame"
                    + " (this one says \(headerLength) of \(frame.count - 2))")
        }
        let header = UnsafeRawBufferPointer(rebasing: frame[2..<(2 + headerLength)])
        let json: JSONValue
        do {
            json = try parser.parse(bytes: header.assumingMemoryBound(to: UInt8.self))
        } catch {
            throw ProtocolError(.badJSON, "binary frame header: \(error.description)")
        }
        guard case .object = json, json["type"]?.stringValue == "upload" else {
            throw ProtocolError(.badMessage, "a binary frame carries only an upload chunk (header type \"upload\")")
        }
        let chunk: UploadChunk
        do throws(ProtocolError) {
            guard json["data"] == nil else {
                throw ProtocolError(
                    .badMessage, "a binary chunk's header carries no 'data': its bytes follow it", ref: "upload")
            }
            chunk = try decodeUpload(
                Fields(json, type: "upload"),
                bytes: [UInt8](UnsafeRawBufferPointer(rebasing: frame[(2 + headerLength)...])))
        } catch {
            guard let id = json["id"]?.stringValue, id.utf8.count <= ProtocolError.maxEchoedIDBytes else { throw error }
            throw error.concerning(id)
        }
        return .upload(chunk)
    }

    private static func decodeFields(_ fields: Fields, type: String) throws(ProtocolError) -> ClientMessage {
        switch type {
        case "hello":
            let client = try fields.object("client")
            let resume = try fields.optionalObject("resume")
            return .hello(
                Hello(
                    protocolVersion: try fields.int("protocol", in: Int(Int32.min)...Int(Int32.max)),
                    client: ClientDescription(
                        kind: try client.optionalString("kind", maxLength: ClientDescription.maxKindBytes)
                            ?? "unknown",
                        // Names and groups are shown to, and sent to, other clients: a
                        // 60,000-character name was copied into every group member's messages.
                        name: try client.optionalString("name", maxLength: ClientDescription.maxNameBytes) ?? "",
                        group: try client.optionalString("group", maxLength: ClientDescription.maxNameBytes)),
                    capabilities: try fields.optionalStrings(
                        "capabilities", maxCount: Hello.maxCapabilities, maxLength: Hello.maxCapabilityBytes) ?? [],
                    token: try fields.optionalString("token"), resumeSession: try resume?.string("session"),
                    resumeLastSeq: try resume?.optionalInt("lastSeq", in: 0...Int(Int32.max))))
        case "result":
            return .result(id: try fields.string("id"), value: try fields.value("value"))
        case "failure":
            let code = FailureCode(rawValue: try fields.oneOf("code", FailureCode.allCases.map(\.rawValue)))!
            return .failure(id: try fields.string("id"), code: code, message: try fields.optionalString("message"))
        case "input":
            return .input(id: try fields.string("id"), textFields: try fields.strings("textFields", maxCount: 16))
        case "upload":
            return .upload(try decodeUpload(fields, bytes: nil))
        case "event":
            return .event(control: try fields.string("control"))
        case "ping":
            return .ping(id: try fields.optionalInt("id", in: 0...Int(Int32.max)))
        default:
            // The type is the peer's text: echoed at most 64 characters, so an error is never
            // an amplifier (a 60 KB type must not earn a 120 KB reply).
            let shown = type.count > 64 ? String(type.prefix(64)) + "…" : type
            throw ProtocolError(.unknownType, "unknown message type '\(shown)'", ref: shown)
        }
    }

    /// Encodes the message as a client sends it.
    /// - Returns: Compact JSON text.
    public func encode() -> String {
        var writer = JSONWriter()
        writer.raw("{\"type\":")
        writer.string(type)
        switch self {
        case .hello(let hello):
            writer.raw(",\"protocol\":")
            writer.int(hello.protocolVersion)
            writer.raw(",\"client\":{\"kind\":")
            writer.string(hello.client.kind)
            writer.raw(",\"name\":")
            writer.string(hello.client.name)
            if let group = hello.client.group {
                writer.raw(",\"group\":")
                writer.string(group)
            }
            writer.raw("},\"capabilities\":")
            writer.strings(hello.capabilities)
            if let token = hello.token {
                writer.raw(",\"token\":")
                writer.string(token)
            }
            if let session = hello.resumeSession {
                writer.raw(",\"resume\":{\"session\":")
                writer.string(session)
                if let lastSeq = hello.resumeLastSeq {
                    writer.raw(",\"lastSeq\":")
                    writer.int(lastSeq)
                }
                writer.raw("}")
            }
        case .result(let id, let value):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"value\":")
            writer.value(value)
        case .failure(let id, let code, let message):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"code\":")
            writer.string(code.rawValue)
            if let message {
                writer.raw(",\"message\":")
                writer.string(message)
            }
        case .input(let id, let textFields):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"textFields\":")
            writer.strings(textFields)
        case .upload(let chunk):
            writer.raw(",\"id\":")
            writer.string(chunk.id)
            writer.raw(",\"file\":")
            writer.int(chunk.file)
            writer.raw(",\"name\":")
            writer.string(chunk.name)
            writer.raw(",\"mimeType\":")
            writer.string(chunk.mimeType)
            writer.raw(",\"size\":")
            writer.int(chunk.size)
            writer.raw(",\"offset\":")
            writer.int(chunk.offset)
            writer.raw(",\"data\":")
            writer.string(chunk.data)
            writer.raw(",\"last\":")
            writer.bool(chunk.last)
        case .event(let control):
            writer.raw(",\"control\":")
            writer.string(control)
        case .ping(let id):
            if let id {
                writer.raw(",\"id\":")
                writer.int(id)
            }
        }
        writer.raw("}")
        return writer.output
    }
}
