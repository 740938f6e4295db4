/// Why a modal ended, as `dismiss.reason` says. Reasons may grow (a newer host may send one
/// this version does not list), so this is a struct with static members: a client treats a
/// reason it does not know as the modal ending, nothing more.
public struct DismissReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire form, for example `resolved`.
    public let rawValue: String

    /// Wraps a wire reason.
    /// - Parameter rawValue: The reason.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A result or failure was accepted.
    public static let resolved = DismissReason(rawValue: "resolved")
    /// The host disposed the subscription.
    public static let disposed = DismissReason(rawValue: "disposed")
    /// The modal's timeout passed.
    public static let timeout = DismissReason(rawValue: "timeout")
    /// The session's retention ran out.
    public static let expired = DismissReason(rawValue: "expired")
    /// Another session answered a group presentation first.
    public static let superseded = DismissReason(rawValue: "superseded")
    /// The host is shutting down.
    public static let shutdown = DismissReason(rawValue: "shutdown")

    /// Every reason of protocol version 1, in the order the host's metrics list them.
    public static let allCases: [DismissReason] = [.resolved, .disposed, .timeout, .expired, .superseded, .shutdown]

    /// Whether protocol version 1 defines this reason.
    public var isKnown: Bool { Self.allCases.contains(self) }

    /// The wire form.
    public var description: String { rawValue }
}

/// The level of a status notice. Levels may grow: a client shows a notice of a level it
/// does not know as `info`.
public struct StatusLevel: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire form, for example `info`.
    public let rawValue: String

    /// Wraps a wire level.
    /// - Parameter rawValue: The level.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Information.
    public static let info = StatusLevel(rawValue: "info")
    /// Something succeeded.
    public static let success = StatusLevel(rawValue: "success")
    /// Something failed.
    public static let error = StatusLevel(rawValue: "error")

    /// Every level of protocol version 1.
    public static let allCases: [StatusLevel] = [.info, .success, .error]

    /// Whether protocol version 1 defines this level.
    public var isKnown: Bool { Self.allCases.contains(self) }

    /// The wire form.
    public var description: String { rawValue }
}

/// One of the session's persistent buttons.
public struct ControlItem: Sendable, Equatable {
    /// The control's id (`signIn`).
    public var id: String
    /// The title.
    public var title: String
    /// The style.
    public var style: ActionStyle
    /// Whether it can be tapped.
    public var enabled: Bool
    /// Whether its flow is running.
    public var busy: Bool

    /// Creates a control item.
    /// - Parameters:
    ///   - id: The id.
    ///   - title: The title.
    ///   - style: The style.
    ///   - enabled: Whether it can be tapped.
    ///   - busy: Whether its flow runs.
    public init(id: String, title: String, style: ActionStyle = .default, enabled: Bool = true, busy: Bool = false) {
        self.id = id
        self.title = title
        self.style = style
        self.enabled = enabled
        self.busy = busy
    }
}

/// How many bytes of one picked file the host holds.
public struct ReceivedFile: Sendable, Equatable {
    /// The file's index in the selection.
    public var file: Int
    /// The contiguous bytes held from offset 0.
    public var bytes: Int

    /// Creates a held-bytes entry.
    /// - Parameters:
    ///   - file: The file's index.
    ///   - bytes: The bytes held.
    public init(file: Int, bytes: Int) {
        self.file = file
        self.bytes = bytes
    }
}

/// What a picker's `present` says about uploading: the window, and after a resume the
/// bytes the host already holds of each file.
public struct UploadOffer: Sendable, Equatable {
    /// The most chunks a client keeps unacknowledged.
    public var window: Int
    /// The bytes held of each file with any (empty on a first presentation).
    public var received: [ReceivedFile]

    /// Creates an upload offer.
    /// - Parameters:
    ///   - window: The most unacknowledged chunks.
    ///   - received: Bytes held per file.
    public init(window: Int, received: [ReceivedFile] = []) {
        self.window = window
        self.received = received
    }
}

/// The heartbeat a host offers in `welcome` (docs/protocol.md, section 3, "Heartbeat"): how long a client
/// may hear nothing before it sends `ping`, and how long it waits for any message after one.
public struct Heartbeat: Sendable, Equatable {
    /// Silence before a ping while nothing waits for the host (no dialog shown, no answer
    /// kept, no tap just sent).
    public var idleSeconds: Int
    /// Silence before a ping while a dialog is shown, a tap was just sent or an answer waits.
    public var activeSeconds: Int
    /// How long after a ping the client waits for any message before it gives the
    /// connection up.
    public var timeoutSeconds: Int

    /// The host's default: a silent host is noticed within 9 s while active, 25 s idle.
    public static let standard = Heartbeat(idleSeconds: 20, activeSeconds: 4, timeoutSeconds: 5)

    /// Creates a heartbeat offer.
    /// - Parameters:
    ///   - idleSeconds: Silence before a ping when idle.
    ///   - activeSeconds: Silence before a ping when something waits for the host.
    ///   - timeoutSeconds: The wait for any message after a ping.
    public init(idleSeconds: Int, activeSeconds: Int, timeoutSeconds: Int) {
        self.idleSeconds = idleSeconds
        self.activeSeconds = activeSeconds
        self.timeoutSeconds = timeoutSeconds
    }
}

/// Every message the host sends. All but `welcome`, `pong` (and an `error` before `welcome`)
/// carry the session's `seq`. Decoding is open, as a client's must be: a message of a type
/// this version does not know is `unknown`, a `present` of a kind it does not know is
/// `presentUnknown`, and growable values (dismiss reasons, status levels, error codes,
/// action styles, text field kinds) it does not know are kept or given their default.
public enum HostMessage: Sendable, Equatable {
    /// The handshake answer.
    ///
    /// `binaryUploads`: the host takes upload chunks in binary frames (docs/protocol.md,
    /// section 7, "Binary chunks"); absent from the JSON when `false`.
    case welcome(
        session: String, resumed: Bool, retentionSeconds: Int, heartbeat: Heartbeat? = nil, binaryUploads: Bool = false)
    /// The answer to a client's `ping` (no `seq`: it belongs to the connection, not the
    /// session), echoing the ping's `id` when it had one.
    case pong(id: Int?)
    /// Show a modal; a picker's carries its upload window and, after a resume, what
    /// the host already holds.
    case present(seq: Int, id: String, modal: ModalDescription, uploads: UploadOffer? = nil)
    /// An upload chunk was accepted; `received` is the contiguous bytes now held of `file`.
    case uploadAck(seq: Int, id: String, file: Int, received: Int)
    /// A modal ended.
    case dismiss(seq: Int, id: String, reason: DismissReason)
    /// The full list of an open modal's action states.
    case update(seq: Int, id: String, actions: [Bool])
    /// The full list of controls.
    case controls(seq: Int, items: [ControlItem])
    /// A notice.
    case status(seq: Int, level: StatusLevel, text: String)
    /// A refused message; `seq` is `nil` before the session exists.
    case error(seq: Int?, ProtocolError)
    /// After a resume: the host has re-sent everything it re-sends (`controls`, the pending
    /// `present`s, their `update`s, the statuses after `lastSeq`); what follows is live.
    case resumed(seq: Int)
    /// A `present` of a modal kind this decoder does not know (a client answers it with
    /// `failure` `unsupported`).
    case presentUnknown(seq: Int, id: String, kind: String)
    /// A message of a type this decoder does not know (ignored, but its `seq` counts).
    case unknown(type: String, seq: Int?)

    /// The message's `type`.
    public var type: String {
        switch self {
        case .welcome: "welcome"
        case .pong: "pong"
        case .present: "present"
        case .dismiss: "dismiss"
        case .update: "update"
        case .uploadAck: "uploadAck"
        case .controls: "controls"
        case .status: "status"
        case .error: "error"
        case .resumed: "resumed"
        case .presentUnknown: "present"
        case .unknown(let type, _): type
        }
    }

    /// The sequence number, if the message has one.
    public var seq: Int? {
        switch self {
        case .welcome, .pong: nil
        case .present(let seq, _, _, _), .dismiss(let seq, _, _), .update(let seq, _, _), .controls(let seq, _),
            .status(let seq, _, _), .uploadAck(let seq, _, _, _):
            seq
        case .error(let seq, _): seq
        case .resumed(let seq), .presentUnknown(let seq, _, _): seq
        case .unknown(_, let seq): seq
        }
    }

    /// The `items` array of a `controls` message as JSON bytes, for a host that keeps
    /// them (a session's controls flip between a few states: idle, busy).
    /// - Parameter items: The controls.
    /// - Returns: The JSON array.
    public static func controlItemsJSON(_ items: [ControlItem]) -> [UInt8] {
        var writer = JSONWriter()
        writeControlItems(items, to: &writer)
        return writer.bytes
    }

    /// A `controls` message around items encoded by `controlItemsJSON`: the same text as
    /// `HostMessage.controls(seq:items:).encode()`.
    /// - Parameters:
    ///   - seq: The sequence number.
    ///   - itemsJSON: What `controlItemsJSON` returned for the items.
    /// - Returns: Compact JSON text, as UTF-8.
    public static func encodeControls(seq: Int, itemsJSON: [UInt8]) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\"type\":\"controls\",\"seq\":")
        writer.int(seq)
        writer.raw(",\"items\":")
        writer.rawBytes(itemsJSON)
        writer.raw("}")
        return writer.bytes
    }

    private static func writeControlItems(_ items: [ControlItem], to writer: inout JSONWriter) {
        writer.raw("[")
        for (offset, item) in items.enumerated() {
            writer.raw(offset == 0 ? "{\"id\":" : ",{\"id\":")
            writer.string(item.id)
            writer.raw(",\"title\":")
            writer.string(item.title)
            writer.raw(",\"style\":")
            writer.string(item.style.rawValue)
            writer.raw(",\"enabled\":")
            writer.bool(item.enabled)
            writer.raw(",\"busy\":")
            writer.bool(item.busy)
            writer.raw("}")
        }
        writer.raw("]")
    }

    /// Encodes the message, keys in the order docs/protocol.md shows them.
    /// - Returns: Compact JSON text.
    public func encode() -> String { String(decoding: encodeUTF8(), as: UTF8.self) }

    /// Encodes the message as `encode` does, as UTF-8 bytes (what a transport writes).
    /// - Returns: Compact JSON text, as UTF-8.
    public func encodeUTF8() -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\"type\":")
        writer.string(type)
        if let seq {
            writer.raw(",\"seq\":")
            writer.int(seq)
        }
        switch self {
        case .welcome(let session, let resumed, let retention, let heartbeat, let binaryUploads):
            writer.raw(",\"protocol\":1,\"session\":")
            writer.string(session)
            writer.raw(",\"resumed\":")
            writer.bool(resumed)
            writer.raw(",\"retentionSeconds\":")
            writer.int(retention)
            if let heartbeat {
                writer.raw(",\"heartbeat\":{\"idleSeconds\":")
                writer.int(heartbeat.idleSeconds)
                writer.raw(",\"activeSeconds\":")
                writer.int(heartbeat.activeSeconds)
                writer.raw(",\"timeoutSeconds\":")
                writer.int(heartbeat.timeoutSeconds)
                writer.raw("}")
            }
            if binaryUploads { writer.raw(",\"binaryUploads\":true") }
        case .pong(let id):
            if let id {
                writer.raw(",\"id\":")
                writer.int(id)
            }
        case .present(_, let id, let modal, let uploads):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"modal\":")
            modal.write(to: &writer)
            if let uploads {
                writer.raw(",\"uploadWindow\":")
                writer.int(uploads.window)
                if !uploads.received.isEmpty {
                    writer.raw(",\"received\":[")
                    for (offset, held) in uploads.received.enumerated() {
                        writer.raw(offset == 0 ? "{\"file\":" : ",{\"file\":")
                        writer.int(held.file)
                        writer.raw(",\"bytes\":")
                        writer.int(held.bytes)
                        writer.raw("}")
                    }
                    writer.raw("]")
                }
            }
        case .uploadAck(_, let id, let file, let received):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"file\":")
            writer.int(file)
            writer.raw(",\"received\":")
            writer.int(received)
        case .dismiss(_, let id, let reason):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"reason\":")
            writer.string(reason.rawValue)
        case .update(_, let id, let actions):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"actions\":[")
            for (offset, enabled) in actions.enumerated() {
                writer.raw(offset == 0 ? "{\"enabled\":" : ",{\"enabled\":")
                writer.bool(enabled)
                writer.raw("}")
            }
            writer.raw("]")
        case .controls(_, let items):
            writer.raw(",\"items\":")
            Self.writeControlItems(items, to: &writer)
        case .status(_, let level, let text):
            writer.raw(",\"level\":")
            writer.string(level.rawValue)
            writer.raw(",\"text\":")
            writer.string(text)
        case .error(_, let error):
            writer.raw(",\"code\":")
            writer.string(error.code.rawValue)
            writer.raw(",\"message\":")
            writer.string(error.message)
            if let ref = error.ref {
                writer.raw(",\"ref\":")
                writer.string(ref)
            }
            if let id = error.id {
                writer.raw(",\"id\":")
                writer.string(id)
            }
            if let file = error.file {
                writer.raw(",\"file\":")
                writer.int(file)
            }
            if let offset = error.offset {
                writer.raw(",\"offset\":")
                writer.int(offset)
            }
            if let held = error.held {
                writer.raw(",\"held\":")
                writer.int(held)
            }
        case .resumed, .unknown:
            break
        case .presentUnknown(_, let id, let kind):
            writer.raw(",\"id\":")
            writer.string(id)
            writer.raw(",\"modal\":{\"kind\":")
            writer.string(kind)
            writer.raw("}")
        }
        writer.raw("}")
        return writer.bytes
    }

    /// Decodes a host message, as a client does.
    /// - Parameter text: The frame's text.
    /// - Returns: The message.
    /// - Throws: ``ProtocolError`` naming what is wrong.
    public static func decode(_ text: String) throws(ProtocolError) -> HostMessage {
        let json: JSONValue
        do {
            json = try JSONParser().parse(text)
        } catch {
            throw ProtocolError(.badJSON, error.description)
        }
        let fields = Fields(json, type: json["type"]?.stringValue)
        let type = try fields.string("type")
        switch type {
        case "welcome":
            // An offer this client cannot read is no offer: the welcome itself still counts.
            var heartbeat: Heartbeat?
            if let offer = try? fields.optionalObject("heartbeat"),
                let idle = try? offer.int("idleSeconds", in: 1...3_600),
                let active = try? offer.int("activeSeconds", in: 1...3_600),
                let timeout = try? offer.int("timeoutSeconds", in: 1...3_600)
            {
                heartbeat = Heartbeat(idleSeconds: idle, activeSeconds: active, timeoutSeconds: timeout)
            }
            return .welcome(
                session: try fields.string("session"), resumed: try fields.bool("resumed"),
                retentionSeconds: try fields.int("retentionSeconds"), heartbeat: heartbeat,
                // Like the heartbeat: an offer this client cannot read is no offer.
                binaryUploads: (try? fields.optionalBool("binaryUploads")) == true)
        case "pong":
            return .pong(id: try fields.optionalInt("id"))
        case "present":
            var uploads: UploadOffer?
            if let window = try fields.optionalInt("uploadWindow") {
                let held = try fields.optionalArray("received", maxCount: 1_000) ?? []
                uploads = UploadOffer(
                    window: window,
                    received: try held.enumerated().map { (index, element) throws(ProtocolError) -> ReceivedFile in
                        let entry = Fields(element, type: type, path: "received[\(index)]")
                        return ReceivedFile(file: try entry.int("file"), bytes: try entry.int("bytes"))
                    })
            }
            let kind = try fields.object("modal").string("kind")
            guard ModalDescription.kinds.contains(kind) else {
                return .presentUnknown(seq: try fields.int("seq"), id: try fields.string("id"), kind: kind)
            }
            return .present(
                seq: try fields.int("seq"), id: try fields.string("id"),
                modal: try ModalDescription.decode(try fields.value("modal")), uploads: uploads)
        case "uploadAck":
            return .uploadAck(
                seq: try fields.int("seq"), id: try fields.string("id"), file: try fields.int("file"),
                received: try fields.int("received"))
        case "dismiss":
            let reason = DismissReason(rawValue: try fields.string("reason"))
            return .dismiss(seq: try fields.int("seq"), id: try fields.string("id"), reason: reason)
        case "update":
            let actions = try fields.array("actions", maxCount: 32).enumerated().map {
                (index, element) throws(ProtocolError) -> Bool in
                try Fields(element, type: type, path: "actions[\(index)]").bool("enabled")
            }
            return .update(seq: try fields.int("seq"), id: try fields.string("id"), actions: actions)
        case "controls":
            let items = try fields.array("items", maxCount: 64).enumerated().map {
                (index, element) throws(ProtocolError) -> ControlItem in
                let item = Fields(element, type: type, path: "items[\(index)]")
                return ControlItem(
                    id: try item.string("id"), title: try item.string("title"),
                    style: ActionStyle(rawValue: try item.optionalString("style") ?? "default") ?? .default,
                    enabled: try item.bool("enabled"), busy: try item.bool("busy"))
            }
            return .controls(seq: try fields.int("seq"), items: items)
        case "status":
            let level = StatusLevel(rawValue: try fields.string("level"))
            return .status(seq: try fields.int("seq"), level: level, text: try fields.string("text"))
        case "error":
            return .error(
                seq: try fields.optionalInt("seq"),
                ProtocolError(
                    ErrorCode(rawValue: try fields.string("code")), try fields.string("message"),
                    ref: try fields.optionalString("ref"), id: try fields.optionalString("id"),
                    file: try fields.optionalInt("file"), held: try fields.optionalInt("held"),
                    offset: try fields.optionalInt("offset")))
        case "resumed":
            return .resumed(seq: try fields.int("seq"))
        default:
            // A type from a newer host: ignored by the client, its `seq` recorded.
            return .unknown(type: type, seq: json["seq"]?.intValue)
        }
    }
}
