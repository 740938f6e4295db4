import Foundation
import RemoteModalProtocol
import RemoteModalTransport

/// How a run is paced and bounded.
public struct ConformanceOptions: Sendable {
    /// The longest a scenario waits for the client, in seconds: a client that does nothing
    /// fails the scenario rather than hanging the run.
    public var timeout: Double = 15
    /// The longest the run waits for a first client, in seconds.
    public var connectTimeout: Double = 120
    /// `http://HOST:PORT` of this host, for the web-authentication URLs.
    public var publicBase = "http://127.0.0.1:8080"
    /// How long acknowledgements are held back the first time a picker's window fills, in
    /// seconds: a client that does not keep the window sends past it meanwhile.
    public var paceHold: Double = 0.5
    /// How long the host goes on listening after the closing alert's answer, in seconds, so
    /// that what the client sends last is judged too.
    public var tail: Double = 1

    /// The defaults.
    public init() {}
}

/// What a scenario sees of the client.
enum ClientEvent {
    /// A connection said `hello` and joined (or started) the session.
    case joined(JoinInfo)
    /// The current connection closed.
    case disconnected
    /// A message from the current connection that is the scenario's to judge.
    case message(JSONValue)
    /// An answer for a modal already accepted came again (as after a resume): its
    /// `dismiss` was sent again.
    case resent(String)
    /// The host-served web-authentication callback was requested.
    case callback(HTTPRequest)
}

/// A `hello` judged: what the client asked and what the host knew then.
struct JoinInfo {
    let askedSession: String?
    let lastSeq: Int?
    let resumed: Bool
    /// The seq of the last message the host sent in the session before this hello.
    let highestSent: Int
    /// The seq of the latest message the client showed it had processed (by answering it).
    let proven: Int
    /// The session the hello could have resumed (nil for the first).
    let previousSession: String?
}

/// An alert action enabled by a rule over its text fields (`enabledIf`).
struct AlertRule: Sendable {
    let action: Int
    let check: @Sendable ([String]) -> Bool
}

/// One modal the conformance host presented.
final class ModalRecord {
    let id: String
    let scenario: String
    let modal: JSONValue
    let firstSeq: Int
    var waitOnly = false
    var hostCallback = false
    var rule: AlertRule?
    var enabled: [Bool]
    var lastInput: [String]?
    var upload: UploadState?
    var pending = true
    var accepted: JSONValue?
    var dismissReason: String?
    var dismissedOn: ConnectionID?
    /// When, and at which `seq`, the first `dismiss` went to `dismissedOn`.
    var dismissedAt: Date?
    var dismissSeq: Int?
    /// The `seq` of its latest `present` (the first, or the one a resume re-sent).
    var presentSeq: Int
    /// What the client sent for it (by message type), for a report of what was seen.
    var seen: [String: Int] = [:]
    /// The `update`s the host sent for it.
    var updates = 0

    init(id: String, scenario: String, modal: JSONValue, firstSeq: Int) {
        self.id = id
        self.scenario = scenario
        self.modal = modal
        self.firstSeq = firstSeq
        presentSeq = firstSeq
        enabled = (modal["actions"]?.arrayValue ?? []).map { $0["enabled"]?.boolValue ?? true }
    }
}

/// The host side of a run: the session, its `seq`, the modals and their answers, on the
/// one thread that runs the scenarios. It does what a host does (welcome, resume with
/// re-sent presents, updates, upload acknowledgements, a `dismiss` again for an answer
/// again) and records each rule a client breaks against the scenario that owns the modal.
final class ConformanceContext {
    let link: ConformanceLink
    var options: ConformanceOptions
    private(set) var scenario = ""
    private(set) var deadline = Date.distantFuture
    private(set) var session: String?
    private(set) var seq = 0
    private(set) var current: ConnectionID?
    private(set) var capabilities: [String] = []
    private var joined: Set<ConnectionID> = []
    private var dropped: Set<ConnectionID> = []
    private var modals: [String: ModalRecord] = [:]
    private var order: [String] = []
    private var forgotten: [String: String] = [:]
    private var counter = 0
    private var proven = 0
    /// The highest `present` seq the client acted on (answered, typed into, uploaded to) on
    /// the current connection: proof it processed every message before it.
    private var connectionProven = 0
    /// The same, per connection, kept after it closed: an answer re-sent after a resume for a
    /// dismiss processed on the connection before is judged on it.
    private var provenBy: [ConnectionID: Int] = [:]
    /// The scenario during which the client's connection closed by itself, while none came back.
    private(set) var wentAway: String?
    private var ackHold: Date?
    private var heldAcks: [(id: String, file: Int, received: Int)] = []
    private var heldOnce: Set<String> = []
    /// The next hello starts a new session, as a restarted host would.
    var forgetSession = false
    /// Whether the next `welcome` offers `heartbeat` (the restarted host of `restart` is an
    /// older one that does not: a client must not ping it).
    var offerHeartbeat = true
    /// Whether the current connection's `welcome` offered it.
    private var heartbeatOffered = false
    /// The scenario whose `welcome` first offered no heartbeat: a ping after it is its failure.
    private var heartbeatWithdrawnBy: String?
    /// Whether the next `welcome` offers `binaryUploads` (the restarted host of `restart`
    /// does not: chunks must come as text then).
    var offerBinaryUploads = true
    /// Whether the current connection's `welcome` offered it.
    private var binaryOffered = false
    /// The scenario whose `welcome` first offered no binary uploads.
    private var binaryWithdrawnBy: String?
    /// Upload chunks that came as binary frames.
    private(set) var binaryChunks = 0
    /// `pong`s sent for the client's `ping`s.
    private(set) var pongs = 0
    /// Rules broken, by scenario.
    private(set) var violations: [String: [ConformanceViolation]] = [:]
    /// SHOULDs not followed, by scenario: said in the report, never a FAIL.
    private(set) var warnings: [String: [ConformanceViolation]] = [:]

    init(link: ConformanceLink, options: ConformanceOptions) {
        self.link = link
        self.options = options
    }

    // MARK: Scenarios

    func begin(_ name: String, seconds: Double? = nil) {
        scenario = name
        deadline = Date().addingTimeInterval(seconds ?? options.timeout)
    }

    func note(_ rule: ConformanceRule, _ detail: String, scenario owner: String? = nil) {
        violations[owner ?? scenario, default: []].append(ConformanceViolation(rule: rule, detail: detail))
    }

    /// A SHOULD not followed: a warning line in the report, the scenario still passes.
    func warn(_ rule: ConformanceRule, _ detail: String) {
        warnings[scenario, default: []].append(ConformanceViolation(rule: rule, detail: detail))
    }

    func modal(_ id: String) -> ModalRecord? { modals[id] }

    /// Pending modals of a scenario that failed: taken away, so that the next one starts clean.
    func disposeLeftovers(of name: String) {
        for id in order where modals[id]?.scenario == name && modals[id]?.pending == true {
            dismiss(id, reason: "disposed")
        }
    }

    // MARK: Sending

    private func write(_ pairs: [(String, JSONValue)], to connection: ConnectionID?) {
        guard let connection else { return }
        link.send(JSONValue.object(pairs).jsonText, to: connection)
    }

    /// A session message: the next `seq`, to the current connection.
    func send(_ pairs: [(String, JSONValue)]) {
        seq += 1
        write(pairs + [("seq", .number(Double(seq)))], to: current)
    }

    func sendError(_ code: String, _ message: String, ref: String?, id: String? = nil, to connection: ConnectionID) {
        var pairs: [(String, JSONValue)] = [("type", "error"), ("code", .string(code)), ("message", .string(message))]
        if let ref { pairs.append(("ref", .string(ref))) }
        if let id { pairs.append(("id", .string(id))) }
        if joined.contains(connection), connection == current {
            send(pairs)
        } else {
            write(pairs, to: connection)
        }
    }

    func status(_ text: String, level: String = "info") {
        send([("type", "status"), ("level", .string(level)), ("text", .string(text))])
    }

    @discardableResult
    func present(
        _ modal: JSONValue, extra: [(String, JSONValue)] = [], waitOnly: Bool = false, rule: AlertRule? = nil,
        upload: UploadState? = nil
    ) -> ModalRecord {
        counter += 1
        let id = "m\(counter)"
        let record = ModalRecord(id: id, scenario: scenario, modal: modal, firstSeq: seq + 1)
        record.waitOnly = waitOnly
        record.rule = rule
        record.upload = upload
        modals[id] = record
        order.append(id)
        var pairs: [(String, JSONValue)] = [("type", "present"), ("id", .string(id)), ("modal", modal)]
        if let upload { pairs.append(("uploadWindow", .number(Double(upload.window)))) }
        send(pairs + extra)
        return record
    }

    /// A present again after a resume: the action states and typed text now, and for a
    /// picker what the host holds.
    private func represent(_ record: ModalRecord) {
        var modal = record.modal
        if case .object(var fields) = modal {
            for index in fields.indices {
                switch fields[index].0 {
                case "actions":
                    let actions = (fields[index].1.arrayValue ?? []).enumerated().map { offset, action in
                        replacing("enabled", with: .bool(record.enabled[safe: offset] ?? true), in: action)
                    }
                    fields[index].1 = .array(actions)
                case "textFields":
                    let texts = (fields[index].1.arrayValue ?? []).enumerated().map { offset, field in
                        let secret = field["kind"]?.stringValue == "password" || field["secure"]?.boolValue == true
                        let text = secret ? nil : record.lastInput?[safe: offset]
                        return replacing("text", with: text.map { .string($0) } ?? .null, in: field)
                    }
                    fields[index].1 = .array(texts)
                default: break
                }
            }
            modal = .object(fields)
        }
        var pairs: [(String, JSONValue)] = [("type", "present"), ("id", .string(record.id)), ("modal", modal)]
        record.presentSeq = seq + 1
        if let upload = record.upload {
            pairs.append(("uploadWindow", .number(Double(upload.window))))
            let received = upload.received.map { entry -> JSONValue in
                .object([("file", .number(Double(entry.file))), ("bytes", .number(Double(entry.bytes)))])
            }
            if !received.isEmpty { pairs.append(("received", .array(received))) }
        }
        send(pairs)
    }

    /// Ends a modal: `dismiss` with this reason to the current connection.
    func dismiss(_ id: String, reason: String) {
        guard let record = modals[id] else { return }
        record.pending = false
        record.dismissReason = reason
        sendDismiss(record)
    }

    /// Takes an answer: the modal ends; `dismiss` `resolved` unless `sendDismiss` is false
    /// (an answer whose dismiss a drop is to swallow).
    func accept(_ id: String, answer: JSONValue, sendDismiss: Bool = true) {
        guard let record = modals[id] else { return }
        record.accepted = answer
        record.pending = false
        record.dismissReason = "resolved"
        if sendDismiss { dismiss(id, reason: "resolved") }
    }

    /// Closes the current connection, as a network drop or a host going away would.
    func drop(code: CloseCode = .internalError, reason: String) {
        guard let connection = current else { return }
        link.close(connection, code: code, reason: reason)
        dropped.insert(connection)
        lost(connection)
    }

    private func lost(_ connection: ConnectionID) {
        joined.remove(connection)
        guard connection == current else { return }
        current = nil
        connectionProven = 0
        if !dropped.contains(connection) { wentAway = scenario }
        heldAcks.removeAll()
        ackHold = nil
        for record in modals.values where record.upload != nil { record.upload?.connectionLost() }
    }

    // MARK: Receiving

    /// The next event for the scenario, or nil at `until` (the scenario's deadline unless
    /// earlier). Meanwhile it answers `hello`s, `input`s, chunks and answers again as a
    /// host does.
    func next(until: Date? = nil) -> ClientEvent? {
        let limit = min(until ?? deadline, deadline)
        while true {
            let wake = ackHold.map { min($0, limit) } ?? limit
            guard let event = link.next(until: wake) else {
                if let hold = ackHold, hold <= Date() { releaseAcks() }
                if Date() >= limit { return nil }
                continue
            }
            switch event {
            case .opened: continue
            case .binary(let id, _) where dropped.contains(id):
                continue
            case .binary(let id, let frame):
                guard let json = binaryChunk(frame, on: id) else { continue }
                guard joined.contains(id) else {
                    sendError("hello_required", "say hello first", ref: "upload", to: id)
                    continue
                }
                guard id == current else { continue }
                if let event = intercept(json, type: "upload") { return event }
            case .closed(let id, _, _):
                let wasCurrent = id == current
                lost(id)
                if wasCurrent { return .disconnected }
            case .callback(let request):
                return .callback(request)
            case .message(let id, _) where dropped.contains(id):
                continue
            case .message(let id, let text):
                guard let json = try? JSONParser().parse(text), case .object = json else {
                    sendError("bad_json", "the frame is not a JSON object", ref: nil, to: id)
                    continue
                }
                let type = json["type"]?.stringValue ?? ""
                if type == "hello" {
                    if let info = hello(json, on: id) { return .joined(info) }
                    continue
                }
                guard joined.contains(id) else {
                    sendError("hello_required", "say hello first", ref: type, to: id)
                    continue
                }
                guard id == current else { continue }
                if let event = intercept(json, type: type) { return event }
            }
        }
    }

    /// A binary frame as the text form of the chunk it carries (`data` in base64), judged
    /// from there like any chunk; `nil` (after the finding and the host's error) for a
    /// frame a host would refuse.
    private func binaryChunk(_ frame: [UInt8], on id: ConnectionID) -> JSONValue? {
        guard binaryOffered else {
            note(
                .noBinary, "a binary frame, to a host whose `welcome` offered no `binaryUploads`",
                scenario: binaryWithdrawnBy ?? scenario)
            sendError("bad_message", "binary frames are not accepted", ref: nil, to: id)
            return nil
        }
        let chunk: UploadChunk
        do {
            guard case .upload(let decoded) = try ClientMessage.decodeBinary(frame) else { return nil }
            chunk = decoded
        } catch {
            note(.binaryChunk, "a binary frame refused: \(error.message)", scenario: scenario)
            sendError(error.code.rawValue, error.message, ref: "upload", id: error.id, to: id)
            return nil
        }
        binaryChunks += 1
        return .object([
            ("type", "upload"), ("id", .string(chunk.id)), ("file", .number(Double(chunk.file))),
            ("name", .string(chunk.name)), ("mimeType", .string(chunk.mimeType)),
            ("size", .number(Double(chunk.size))), ("offset", .number(Double(chunk.offset))),
            ("data", .string(Data(chunk.bytes ?? []).base64EncodedString())), ("last", .bool(chunk.last)),
        ])
    }

    /// Waits until a client has joined the session.
    func awaitClient() -> Bool {
        while current == nil {
            guard let event = next() else { return false }
            if case .joined = event { return true }
        }
        return true
    }

    /// Lets `seconds` pass while doing what a host does.
    func pause(_ seconds: Double) {
        let until = Date().addingTimeInterval(seconds)
        while Date() < until, next(until: until) != nil {}
    }

    private func hello(_ json: JSONValue, on connection: ConnectionID) -> JoinInfo? {
        guard json["protocol"]?.intValue == 1 else {
            sendError("unsupported_protocol", "this host speaks protocol 1", ref: "hello", to: connection)
            link.close(connection, code: .policyViolation, reason: "unsupported protocol")
            return nil
        }
        guard !joined.contains(connection) else {
            sendError("bad_message", "a second hello", ref: "hello", to: connection)
            return nil
        }
        let asked = json["resume"]?["session"]?.stringValue
        let lastSeq = json["resume"]?["lastSeq"]?.intValue
        let highest = seq
        let provenBefore = proven
        let previous = session
        let resumed = asked != nil && asked == session && !forgetSession
        if !resumed {
            for id in order { forgotten[id] = modals[id]?.scenario }
            modals.removeAll()
            order.removeAll()
            seq = 0
            proven = 0
            forgetSession = false
            session = Self.newSessionID()
        }
        if let old = current, old != connection {
            link.close(old, code: .normal, reason: "replaced by a newer connection")
            lost(old)
        }
        current = connection
        connectionProven = 0
        wentAway = nil
        joined.insert(connection)
        capabilities = (json["capabilities"]?.arrayValue ?? []).compactMap(\.stringValue)
        var welcome: [(String, JSONValue)] = [
            ("type", "welcome"), ("protocol", 1), ("session", .string(session ?? "")), ("resumed", .bool(resumed)),
            ("retentionSeconds", 60),
        ]
        heartbeatOffered = offerHeartbeat
        binaryOffered = offerBinaryUploads
        if !offerBinaryUploads, binaryWithdrawnBy == nil { binaryWithdrawnBy = scenario }
        if !offerHeartbeat, heartbeatWithdrawnBy == nil { heartbeatWithdrawnBy = scenario }
        if offerHeartbeat {
            welcome.append(
                ("heartbeat", .object([("idleSeconds", 20), ("activeSeconds", 4), ("timeoutSeconds", 5)])))
        }
        if offerBinaryUploads { welcome.append(("binaryUploads", true)) }
        write(welcome, to: connection)
        send([("type", "controls"), ("items", [])])
        if resumed {
            for id in order { if let record = modals[id], record.pending { represent(record) } }
            send([("type", "resumed")])
        }
        return JoinInfo(
            askedSession: asked, lastSeq: lastSeq, resumed: resumed, highestSent: highest, proven: provenBefore,
            previousSession: previous)
    }

    private func intercept(_ json: JSONValue, type: String) -> ClientEvent? {
        let id = json["id"]?.stringValue
        switch type {
        case "result", "failure":
            guard let id else {
                sendError("bad_message", "field 'id' is missing", ref: type, to: current!)
                return nil
            }
            guard let record = modals[id] else {
                if let owner = forgotten[id] {
                    note(
                        .newSession, "after the new session, an answer (\(type)) for \(id) of the old one came",
                        scenario: owner)
                } else {
                    note(.instructions, "an answer (\(type)) for \(id), which was never presented")
                }
                sendError("unknown_modal", "no modal \(id) in this session", ref: type, id: id, to: current!)
                return nil
            }
            if record.waitOnly {
                let ended = record.dismissReason.map { "; it was dismissed (\($0)) before" } ?? ""
                note(
                    record.dismissReason == nil ? .instructions : .dismiss,
                    "an answer (\(type)) for \(id), whose text said \"Wait.\"\(ended)", scenario: record.scenario)
                if !record.pending { resendDismiss(record) }
                return nil
            }
            if record.hostCallback {
                if type == "result" {
                    note(
                        .hostCallback, "a result for \(id), a host-served web authentication", scenario: record.scenario
                    )
                    sendError(
                        "bad_message", "this web authentication is answered by its callback", ref: type, id: id,
                        to: current!)
                    return nil
                }
                return record.pending ? .message(json) : nil
            }
            if let accepted = record.accepted {
                // The same answer again is no second answer (§5: a client MAY send it again
                // until it sees the dismiss); once the client has processed the dismiss it
                // forgets the answer, so the same one after that proof is a violation.
                if accepted != json {
                    note(.exactlyOnce, "a second, different answer for \(id)", scenario: record.scenario)
                } else if let on = record.dismissedOn, let dismissSeq = record.dismissSeq,
                    let proof = provenBy[on], proof > dismissSeq
                {
                    let place = on == current ? "" : " on the connection before the resume"
                    note(
                        .forget,
                        "the answer for \(id) came again after its dismiss (seq \(dismissSeq)) was processed\(place): the client had since acted on seq \(proof)",
                        scenario: record.scenario)
                } else if record.dismissedOn == current, let at = record.dismissedAt,
                    Date().timeIntervalSince(at) >= Self.forgetSeconds
                {
                    note(
                        .forget,
                        "the answer for \(id) came again \(Int(Date().timeIntervalSince(at))) s after its dismiss was sent on this connection",
                        scenario: record.scenario)
                }
                resendDismiss(record)
                return .resent(id)
            }
            guard record.pending else {
                note(
                    .dismiss, "an answer (\(type)) for \(id) after its dismiss (\(record.dismissReason ?? "?"))",
                    scenario: record.scenario)
                resendDismiss(record)
                return nil
            }
            proven = max(proven, record.firstSeq)
            acted(on: record)
            record.seen[type, default: 0] += 1
            return .message(json)
        case "input":
            guard let id, let record = modals[id] else {
                if let id { sendError("unknown_modal", "no modal \(id)", ref: type, id: id, to: current!) }
                return nil
            }
            guard record.pending, let texts = json["textFields"]?.arrayValue?.compactMap(\.stringValue) else {
                return nil
            }
            proven = max(proven, record.firstSeq)
            acted(on: record)
            record.seen[type, default: 0] += 1
            record.lastInput = texts
            if let rule = record.rule, rule.action < record.enabled.count {
                let now = rule.check(texts)
                if record.enabled[rule.action] != now {
                    record.enabled[rule.action] = now
                    record.updates += 1
                    send([
                        ("type", "update"), ("id", .string(id)),
                        ("actions", .array(record.enabled.map { .object([("enabled", .bool($0))]) })),
                    ])
                }
            }
            return .message(json)
        case "upload":
            guard let id, let record = modals[id] else {
                if let id { sendError("unknown_modal", "no modal \(id)", ref: type, id: id, to: current!) }
                return nil
            }
            guard record.pending, var upload = record.upload else {
                if record.pending {
                    sendError("upload_invalid", "not a picker", ref: type, id: id, to: current!)
                }
                return nil
            }
            proven = max(proven, record.firstSeq)
            acted(on: record)
            record.seen[type, default: 0] += 1
            let outcome = upload.receive(json)
            record.upload = upload
            let offset = json["offset"]?.intValue
            switch outcome {
            case .stored(let file, let received):
                heldAcks.append((id, file, received))
                if upload.inFlight >= upload.window, !heldOnce.contains(id) {
                    heldOnce.insert(id)
                    ackHold = Date().addingTimeInterval(options.paceHold)
                } else if ackHold == nil {
                    ackHold = Date().addingTimeInterval(0.01)
                }
            case .overrun(let inFlight):
                note(
                    .window,
                    "a chunk of \(id) arrived with \(inFlight) unacknowledged (uploadWindow \(upload.window))",
                    scenario: record.scenario)
                let file = json["file"]?.intValue ?? 0
                sendUploadError(
                    "rate_limited", "beyond the upload window", id: id, file: file, offset: offset,
                    held: upload.files[file]?.bytes.count ?? 0)
            case .invalid(let file, let held, let reason):
                note(UploadState.rule(for: reason), "a chunk of \(id) refused: \(reason)", scenario: record.scenario)
                sendUploadError("upload_invalid", reason, id: id, file: file, offset: offset, held: held)
            case .inFlight(let file, let held, let reason):
                // Sent before the client saw the earlier refusal: its reply, no second finding.
                sendUploadError("upload_invalid", reason, id: id, file: file, offset: offset, held: held)
            }
            return .message(json)
        case "event":
            return .message(json)
        case "ping":
            guard heartbeatOffered else {
                note(
                    .noPing, "a `ping`, to a host whose `welcome` offered no `heartbeat`",
                    scenario: heartbeatWithdrawnBy)
                sendError("unknown_type", "unknown message type 'ping'", ref: type, to: current!)
                return nil
            }
            // At once, on this connection, no seq (§3 "Heartbeat").
            var pong: [(String, JSONValue)] = [("type", "pong")]
            if let ping = json["id"] { pong.append(("id", ping)) }
            write(pong, to: current)
            pongs += 1
            return nil
        default:
            sendError("unknown_type", "unknown message type '\(type)'", ref: type, to: current!)
            return nil
        }
    }

    /// The client acted on `record` (answered, typed, uploaded): it processed its `present`.
    private func acted(on record: ModalRecord) {
        connectionProven = max(connectionProven, record.presentSeq)
        if let current { provenBy[current] = connectionProven }
    }

    /// An upload chunk's reply when refused: the file, the refused chunk's offset and the
    /// bytes held of that file (where to go on from).
    private func sendUploadError(_ code: String, _ message: String, id: String, file: Int, offset: Int?, held: Int) {
        var pairs: [(String, JSONValue)] = [
            ("type", "error"), ("code", .string(code)), ("message", .string(message)), ("ref", "upload"),
            ("id", .string(id)), ("file", .number(Double(file))),
        ]
        if let offset { pairs.append(("offset", .number(Double(offset)))) }
        pairs.append(("held", .number(Double(held))))
        send(pairs)
    }

    /// How long after its dismiss (on one connection) the same answer again is a client that
    /// did not forget it: past the reply watchdog of §12.8, a live client has seen the dismiss.
    static let forgetSeconds: Double = 10

    private func resendDismiss(_ record: ModalRecord) { sendDismiss(record) }

    /// A `dismiss` (again) to the current connection; the first one on a connection is the
    /// one an answer again is judged against.
    private func sendDismiss(_ record: ModalRecord) {
        guard let reason = record.dismissReason else { return }
        if record.dismissedOn != current || record.dismissSeq == nil {
            record.dismissedOn = current
            record.dismissedAt = Date()
            record.dismissSeq = seq + 1
        }
        send([("type", "dismiss"), ("id", .string(record.id)), ("reason", .string(reason))])
    }

    private func releaseAcks() {
        ackHold = nil
        let acks = heldAcks
        heldAcks.removeAll()
        for ack in acks {
            guard let record = modals[ack.id] else { continue }
            record.upload?.acknowledged(1)
            send([
                ("type", "uploadAck"), ("id", .string(ack.id)), ("file", .number(Double(ack.file))),
                ("received", .number(Double(ack.received))),
            ])
        }
    }

    static func newSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

func replacing(_ key: String, with value: JSONValue, in object: JSONValue) -> JSONValue {
    guard case .object(var pairs) = object else { return object }
    if let index = pairs.firstIndex(where: { $0.0 == key }) {
        pairs[index].1 = value
    } else {
        pairs.append((key, value))
    }
    return .object(pairs)
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
