import Foundation
import RemoteModalProtocol

/// Building modals and judging answers, for the scenarios.
extension ConformanceContext {
    var seconds: String { "\(Int(options.timeout.rounded())) s" }

    static func alert(
        title: String, instructions: [Instruction], fields: [(kind: String, placeholder: String)] = [],
        actions: [(title: String, style: String, enabled: Bool)], extra: [(String, JSONValue)] = []
    ) -> JSONValue {
        let textFields: [JSONValue] = fields.map {
            .object([("kind", .string($0.kind)), ("placeholder", .string($0.placeholder)), ("text", .null)])
        }
        let buttons: [JSONValue] = actions.enumerated().map { index, action in
            .object([
                ("title", .string(action.title)), ("style", .string(action.style)), ("enabled", .bool(action.enabled)),
                ("preferred", .bool(index == actions.count - 1 && action.style != "cancel")),
            ])
        }
        return .object(
            [
                ("kind", "alert"), ("title", .string(title)), ("message", .string(Instruction.text(instructions))),
                ("textFields", .array(textFields)), ("actions", .array(buttons)),
            ] + extra)
    }

    /// The rule of the sign-in alerts: action 1 while field 1 has an `@` and field 2 is not empty.
    static let signInRule = AlertRule(action: 1) { fields in
        fields.count == 2 && fields[0].contains("@") && !fields[1].isEmpty
    }

    /// A sign-in alert (e-mail, password; Cancel, and Sign In enabled by `signInRule`) whose
    /// text says to type `email` and `password` and choose Sign In.
    func presentSignIn(title: String, email: String, password: String) -> ModalRecord {
        present(
            Self.alert(
                title: title, instructions: [.type(email, field: 1), .type(password, field: 2), .choose("Sign In")],
                fields: [("email", "e-mail"), ("password", "password")],
                actions: [("Cancel", "cancel", true), ("Sign In", "default", false)]),
            rule: Self.signInRule)
    }

    /// Waits for the answer to a `presentSignIn` alert and judges it: Sign In with those texts.
    func judgeSignIn(_ record: ModalRecord, email: String, password: String) throws {
        try judgeAlert(record, answer: try awaitAnswer(record), choose: "Sign In", texts: [email, password])
    }

    /// An alert whose text says to wait: the host dismisses it.
    func presentWait(title: String) -> ModalRecord {
        present(
            Self.alert(
                title: title, instructions: [.wait], actions: [(title: "OK", style: "default", enabled: true)]),
            waitOnly: true)
    }

    /// The first answer (`result` or `failure`) for `record`.
    func awaitAnswer(_ record: ModalRecord, rule: ConformanceRule = .instructions, what: String? = nil) throws
        -> JSONValue
    {
        while true {
            guard let event = next() else {
                let title = record.modal["title"]?.stringValue.map { " (\"\($0)\")" } ?? ""
                if current == nil, let away = wentAway {
                    throw ScenarioFailure(
                        .stayed,
                        "the client went away (its connection closed during \(away)) and no client came back within \(seconds): no answer to \(record.id)\(title)"
                    )
                }
                let said =
                    what ?? "no answer to \(record.id)\(title) within \(seconds): the client did not do what it said"
                throw ScenarioFailure(rule, "\(said); \(seenSoFar(record))")
            }
            if case .message(let json) = event, json["id"]?.stringValue == record.id,
                let type = json["type"]?.stringValue, type == "result" || type == "failure"
            {
                return json
            }
        }
    }

    /// What came for a modal, for a timeout's report: "2 `input`s came and 1 `update`
    /// enabled an action; no result", or what the connection did.
    func seenSoFar(_ record: ModalRecord) -> String {
        func counted(_ count: Int, _ word: String) -> String { count == 1 ? "1 `\(word)`" : "\(count) `\(word)`s" }
        var parts = record.seen.keys.sorted().map { counted(record.seen[$0] ?? 0, $0) + " came" }
        if record.updates > 0 {
            let titles = (record.modal["actions"]?.arrayValue ?? []).enumerated().compactMap { index, action in
                record.enabled[safe: index] == true ? action["title"]?.stringValue.map { "\"\($0)\"" } : nil
            }
            parts.append(
                "the host sent \(counted(record.updates, "update")) (enabled now: \(titles.isEmpty ? "none" : titles.joined(separator: ", ")))"
            )
        }
        if let upload = record.upload, upload.chunksStored > 0 {
            parts.append("\(upload.chunksStored) chunk(s) stored")
        }
        let seen = parts.isEmpty ? "nothing came for \(record.id)" : parts.joined(separator: ", ")
        let connection =
            current == nil ? (wentAway != nil ? "; the client's connection closed" : "; no connection") : ""
        return "\(seen); no result or failure\(connection)"
    }

    /// The answer's `value`: a `failure` fails the scenario.
    func resultValue(_ answer: JSONValue, of record: ModalRecord) throws -> JSONValue {
        guard answer["type"]?.stringValue == "result" else {
            let code = answer["code"]?.stringValue ?? "?"
            throw ScenarioFailure(
                .instructions, "\(record.id) was answered with failure '\(code)', not as its text said")
        }
        guard let value = answer["value"] else {
            sendError("bad_message", "field 'value' is missing", ref: "result", id: record.id, to: current!)
            throw ScenarioFailure(.answerFormat, "the result for \(record.id) has no `value`")
        }
        return value
    }

    /// The next `hello` that joined, judged as a resume of the session that was.
    func awaitResume(after what: String) throws -> JoinInfo {
        while true {
            guard let event = next() else {
                throw ScenarioFailure(.resume, "no resume within \(seconds) after \(what)")
            }
            guard case .joined(let info) = event else { continue }
            guard let asked = info.askedSession, asked == info.previousSession else {
                throw ScenarioFailure(
                    .resume,
                    info.askedSession == nil
                        ? "after \(what), the client said hello without `resume`"
                        : "after \(what), the client resumed a session that is not the one it had")
            }
            judgeLastSeq(info, after: what)
            return info
        }
    }

    /// `lastSeq` is a SHOULD (§4, §9): left out or off, a warning, never a FAIL.
    func judgeLastSeq(_ info: JoinInfo, after what: String) {
        guard let lastSeq = info.lastSeq else {
            warn(.lastSeq, "after \(what), the resume carried no `lastSeq`")
            return
        }
        if lastSeq > info.highestSent {
            warn(.lastSeq, "after \(what), `lastSeq` \(lastSeq) is beyond the last seq sent (\(info.highestSent))")
        } else if lastSeq < info.proven {
            warn(
                .lastSeq,
                "after \(what), `lastSeq` \(lastSeq) is below seq \(info.proven), a message the client had answered")
        }
    }

    /// Judges an alert's (or sheet's) answer against its rules and its instructions; takes
    /// it when it holds.
    func judgeAlert(_ record: ModalRecord, answer: JSONValue, choose title: String, texts: [String] = []) throws {
        let value = try resultValue(answer, of: record)
        let actions = record.modal["actions"]?.arrayValue ?? []
        let fieldCount = record.modal["textFields"]?.arrayValue?.count ?? 0
        guard let action = value["action"]?.intValue, actions.indices.contains(action) else {
            sendError("bad_message", "'action' is not an index", ref: "result", id: record.id, to: current!)
            throw ScenarioFailure(.answerFormat, "the answer for \(record.id) has no valid `action` index")
        }
        let given = value["textFields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard given.count == fieldCount || (fieldCount == 0 && value["textFields"] == nil) else {
            sendError("bad_message", "wrong number of text fields", ref: "result", id: record.id, to: current!)
            throw ScenarioFailure(
                .answerFormat, "the answer for \(record.id) has \(given.count) text fields, the alert \(fieldCount)")
        }
        if let rule = record.rule, rule.action == action {
            guard rule.check(given) else {
                let code = record.enabled[action] ? "action_disabled" : "bad_message"
                sendError(code, "action \(action) is disabled", ref: "result", id: record.id, to: current!)
                throw ScenarioFailure(
                    .disabled, "\(record.id): action \(action) chosen with fields that do not enable it")
            }
        } else if !record.enabled[action] {
            sendError("bad_message", "action \(action) is disabled", ref: "result", id: record.id, to: current!)
            throw ScenarioFailure(.disabled, "\(record.id): action \(action) chosen while disabled")
        }
        let chosen = actions[action]["title"]?.stringValue ?? ""
        guard chosen == title else {
            throw ScenarioFailure(.instructions, "\(record.id): \"\(chosen)\" chosen, the text said \"\(title)\"")
        }
        guard given == texts || (texts.isEmpty && fieldCount == 0) else {
            throw ScenarioFailure(.instructions, "\(record.id): text fields \(given), the text said \(texts)")
        }
        accept(record.id, answer: answer)
    }

    /// Waits for a picker's result, then checks it against the bytes held.
    func judgePicker(_ record: ModalRecord, count: Int, bytes: Int, rule: ConformanceRule = .instructions) throws {
        let answer = try awaitAnswer(record, rule: rule)
        let value = try resultValue(answer, of: record)
        guard let upload = record.upload else { return }
        if let wrong = upload.judge(result: value) {
            sendError("upload_invalid", wrong, ref: "result", id: record.id, to: current!)
            throw ScenarioFailure(.uploadResult, "\(record.id): \(wrong)")
        }
        let sizes = upload.files.values.map(\.size)
        guard sizes.count == count, sizes.allSatisfy({ $0 >= bytes }) else {
            throw ScenarioFailure(
                .instructions,
                "\(record.id): \(sizes.count) file(s) of \(sizes) bytes, the text said \(count) of \(bytes)")
        }
        accept(record.id, answer: answer)
    }

    /// A picker whose prompt says `instruction` (an upload), its uploads judged on a window of
    /// `window` chunks and on the types the kind takes (images; audio and video).
    func presentPicker(_ kind: String, _ instruction: Instruction, window: Int, fields: [(String, JSONValue)])
        -> ModalRecord
    {
        present(
            Self.picker(kind: kind, instruction: instruction, fields: fields),
            upload: UploadState(window: window, accepts: kind == "photoPicker" ? ["image/"] : ["audio/", "video/"]))
    }

    static func picker(kind: String, instruction: Instruction, fields: [(String, JSONValue)]) -> JSONValue {
        .object(
            [("kind", .string(kind))] + fields + [
                ("maxBytes", 10_485_760), ("prompt", .string(instruction.description)),
            ])
    }
}
