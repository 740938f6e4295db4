import Foundation
import RemoteModalProtocol

/// One scripted check of a client: what the host presents, drops or sends, and the rules the
/// client's answers are judged on.
public struct ConformanceScenario: Sendable {
    /// The name `--scenario` takes.
    public let name: String
    /// One line for `--help`.
    public let summary: String
    /// The capabilities the client must advertise (else the scenario is skipped).
    public let needs: [String]
    let run: @Sendable (ConformanceContext) throws -> Void

    init(
        _ name: String, _ summary: String, needs: [String], run: @escaping @Sendable (ConformanceContext) throws -> Void
    ) {
        self.name = name
        self.summary = summary
        self.needs = needs
        self.run = run
    }

    /// Every scenario, in the order a full run takes them.
    public static let all: [ConformanceScenario] = [
        alert, sheet, mail, message, photo, media, webAuthScheme, webAuthCallback, custom, unknownValues, dismiss,
        dropDialog, dropAnswer, dropUpload, restart,
    ]

    /// The scenarios of these names, in the catalogue's order; nil names one that is not.
    /// - Parameter names: Scenario names (empty: all).
    /// - Returns: The scenarios, or nil with the unknown name.
    public static func named(_ names: [String]) -> Result<[ConformanceScenario], UnknownScenario> {
        if names.isEmpty { return .success(all) }
        if let unknown = names.first(where: { name in !all.contains { $0.name == name } }) {
            return .failure(UnknownScenario(name: unknown))
        }
        return .success(all.filter { names.contains($0.name) })
    }

    /// A `--scenario` that names none.
    public struct UnknownScenario: Error, CustomStringConvertible {
        /// The name given.
        public let name: String
        /// In words, with the names there are.
        public var description: String {
            "no scenario '\(name)' (there are: \(ConformanceScenario.all.map(\.name).joined(separator: ", ")))"
        }
    }

    static let alert = ConformanceScenario(
        "alert", "an alert with an e-mail and a password field; Sign In enabled by a rule over them (enabledIf)",
        needs: ["alert"]
    ) { context in
        let record = context.presentSignIn(title: "Sign in", email: "ann@example.com", password: "pw")
        try context.judgeSignIn(record, email: "ann@example.com", password: "pw")
    }

    static let sheet = ConformanceScenario(
        "sheet", "an action sheet of four choices", needs: ["actionSheet"]
    ) { context in
        let record = context.present(
            .object([
                ("kind", "actionSheet"), ("title", "Choose a country"),
                ("message", .string(Instruction.text([.choose("Japan")]))), ("source", .null),
                (
                    "actions",
                    .array(
                        [("France", "default"), ("Japan", "default"), ("Brazil", "default"), ("Cancel", "cancel")].map {
                            .object([
                                ("title", .string($0.0)), ("style", .string($0.1)), ("enabled", true),
                                ("preferred", false),
                            ])
                        })
                ),
            ]))
        try context.judgeAlert(record, answer: try context.awaitAnswer(record), choose: "Japan")
    }

    static func composer(_ kind: String, _ fields: [(String, JSONValue)], statusKey: String)
        -> @Sendable (
            ConformanceContext
        ) throws -> Void
    {
        { context in
            let record = context.present(.object([("kind", .string(kind))] + fields))
            let answer = try context.awaitAnswer(record)
            let value = try context.resultValue(answer, of: record)
            guard let status = value["status"]?.stringValue else {
                context.sendError(
                    "bad_message", "'status' is missing", ref: "result", id: record.id, to: context.current!)
                throw ScenarioFailure(.answerFormat, "the \(kind) answer has no `status`")
            }
            if let edited = value[statusKey], case .object = edited {
            } else if value[statusKey] != nil {
                throw ScenarioFailure(.answerFormat, "the \(kind) answer's `\(statusKey)` is not an object")
            }
            guard status == "sent" else {
                throw ScenarioFailure(
                    .instructions, "the \(kind) answer's status is '\(status)', the text said \"Send.\"")
            }
            context.accept(record.id, answer: answer)
        }
    }

    static let mail = ConformanceScenario(
        "mail", "a mail composer, to be sent", needs: ["mailComposer"],
        run: composer(
            "mailComposer",
            [
                ("to", ["qa@example.com"]), ("cc", []), ("bcc", []), ("subject", "Conformance"),
                ("body", .string(Instruction.text([.send]))), ("isHTML", false),
            ], statusKey: "mail"))

    static let message = ConformanceScenario(
        "message", "a message composer, to be sent", needs: ["messageComposer"],
        run: composer(
            "messageComposer",
            [("recipients", ["0639981337"]), ("subject", .null), ("body", .string(Instruction.text([.send])))],
            statusKey: "message"))

    static let photo = ConformanceScenario(
        "photo", "a photo picker: two images uploaded within a window of 4, SHA-256 checked", needs: ["photoPicker"]
    ) { context in
        let record = context.presentPicker(
            "photoPicker", .upload(count: 2, bytes: 40_000, mimeType: "image/png"), window: 4,
            fields: [("selectionLimit", 2), ("filter", ["image"])])
        try context.judgePicker(record, count: 2, bytes: 40_000)
    }

    static let media = ConformanceScenario(
        "media", "a media picker: one audio file of five chunks within a window of 2, SHA-256 checked",
        needs: ["mediaPicker"]
    ) { context in
        let record = context.presentPicker(
            "mediaPicker", .upload(count: 1, bytes: 150_000, mimeType: "audio/mpeg"), window: 2,
            fields: [("types", ["audio"]), ("allowsMultiple", false)])
        try context.judgePicker(record, count: 1, bytes: 150_000)
    }

    static let webAuthScheme = ConformanceScenario(
        "webauth-scheme", "web authentication with a native callback scheme: the answer is the URL reached",
        needs: ["webAuthentication"]
    ) { context in
        let state = String(ConformanceContext.newSessionID().prefix(8))
        let callback = "conformance://callback?code=scheme-code&state=\(state)"
        let path = "/conformance/authorize/\(state)"
        context.link.redirect(path, to: callback)
        let record = context.present(
            .object([
                ("kind", "webAuthentication"), ("url", .string(context.options.publicBase + path)),
                ("callbackURL", .null),
                ("callbackURLScheme", "conformance"),
            ]))
        let value = try context.resultValue(try context.awaitAnswer(record), of: record)
        guard let url = value["url"]?.stringValue else {
            throw ScenarioFailure(.answerFormat, "the web authentication answer has no `url`")
        }
        guard url == callback else {
            throw ScenarioFailure(.instructions, "the answer's url is not the callback the page redirected to")
        }
        context.accept(record.id, answer: .object([("type", "result"), ("id", .string(record.id)), ("value", value)]))
    }

    static let webAuthCallback = ConformanceScenario(
        "webauth-callback", "web authentication with a host-served callback: the client sends no result",
        needs: ["webAuthentication"]
    ) { context in
        let nonce = String(ConformanceContext.newSessionID().prefix(12))
        let state = String(ConformanceContext.newSessionID().prefix(8))
        let callbackURL = context.options.publicBase + "/auth/callback/\(nonce)"
        let path = "/conformance/authorize/\(state)"
        context.link.redirect(path, to: callbackURL + "?code=callback-code&state=\(state)")
        let record = context.present(
            .object([
                ("kind", "webAuthentication"), ("url", .string(context.options.publicBase + path)),
                ("callbackURL", .string(callbackURL)), ("callbackURLScheme", .null),
            ]))
        record.hostCallback = true
        while true {
            guard let event = context.next() else {
                throw ScenarioFailure(.instructions, "the callback URL was not reached within \(context.seconds)")
            }
            switch event {
            case .callback(let request) where request.path == "/auth/callback/\(nonce)":
                guard request.queryItems["state"] == state else {
                    throw ScenarioFailure(.instructions, "the callback came with another state")
                }
                context.accept(record.id, answer: "callback")
                return
            case .message(let json)
            where json["type"]?.stringValue == "failure" && json["id"]?.stringValue == record.id:
                throw ScenarioFailure(.instructions, "\(record.id) was answered with failure, not by its callback")
            default: continue
            }
        }
    }

    static let custom = ConformanceScenario(
        "custom", "the custom kind `custom:conformance`: its payload says the JSON to answer",
        needs: ["custom:conformance"]
    ) { context in
        let expected: JSONValue = .object([("echo", "K7"), ("n", 2)])
        let record = context.present(
            .object([
                ("kind", "custom"), ("name", "conformance"),
                ("payload", .object([("instructions", .string(Instruction.text([.answer(expected.jsonText)])))])),
            ]))
        let value = try context.resultValue(try context.awaitAnswer(record), of: record)
        guard value == expected else {
            throw ScenarioFailure(
                .instructions, "the custom answer is \(value.jsonText), the payload said \(expected.jsonText)")
        }
        context.accept(record.id, answer: .object([("type", "result"), ("id", .string(record.id)), ("value", value)]))
    }

    static let unknownValues = ConformanceScenario(
        "unknown-values",
        "a message type, fields, an error code, a status level, a dismiss reason, a field kind from a future version; then an alert",
        needs: ["alert"]
    ) { context in
        context.send([("type", "forecast"), ("text", "a message type of a future version"), ("priority", 3)])
        context.send([
            ("type", "status"), ("level", "celebration"), ("text", "A status level of a future version"),
            ("icon", .object([("name", "party")])),
        ])
        context.send([
            ("type", "error"), ("code", "quota_exceeded"), ("message", "An error code of a future version"),
            ("ref", "event"), ("retryAfter", 30),
        ])
        let gone = context.presentWait(title: "Taken away")
        context.pause(0.3)
        context.dismiss(gone.id, reason: "withdrawn")
        let record = context.present(
            ConformanceContext.alert(
                title: "From the future", instructions: [.type("blue", field: 1), .choose("Continue")],
                fields: [("colour", "a colour")],
                actions: [("Back", "cancel", true), ("Continue", "emphatic", true)],
                extra: [("theme", .object([("accent", "#0057b8"), ("motion", "reduced")])), ("layout", "compact")]),
            extra: [("priority", "high"), ("expires", 3_600)])
        try context.judgeAlert(
            record,
            answer: try context.awaitAnswer(
                record, rule: .unknownValues,
                what: "no answer within \(context.seconds) to an alert that came after values of a future version"),
            choose: "Continue", texts: ["blue"])
    }

    static let dismiss = ConformanceScenario(
        "dismiss", "a dialog dismissed by the host before any answer: no answer may come for it", needs: ["alert"]
    ) { context in
        let gone = context.presentWait(title: "Wait for it")
        context.pause(0.5)
        context.dismiss(gone.id, reason: "disposed")
        let record = context.present(
            ConformanceContext.alert(
                title: "After the dismiss", instructions: [.choose("OK")], actions: [("OK", "default", true)]))
        try context.judgeAlert(record, answer: try context.awaitAnswer(record), choose: "OK")
    }

    static let dropDialog = ConformanceScenario(
        "drop-dialog", "the connection dropped mid-dialog: resume with lastSeq, the dialog re-presented, answered once",
        needs: ["alert"]
    ) { context in
        let record = context.presentSignIn(title: "Sign in again", email: "bob@example.com", password: "pw2")
        // Mid-dialog: straight after the present, so that even a script has not answered yet
        // (an answer sent meanwhile is lost with the connection and must come again).
        context.drop(reason: "conformance: dropped mid-dialog")
        _ = try context.awaitResume(after: "a drop mid-dialog")
        try context.judgeSignIn(record, email: "bob@example.com", password: "pw2")
    }

    static let dropAnswer = ConformanceScenario(
        "drop-answer", "the connection dropped after an answer, before its dismiss: the answer must come again, once",
        needs: ["alert"]
    ) { context in
        let record = context.present(
            ConformanceContext.alert(
                title: "Pick one", instructions: [.choose("Second")],
                actions: [("First", "default", true), ("Second", "default", true)]))
        let answer = try context.awaitAnswer(record)
        let value = try context.resultValue(answer, of: record)
        guard value["action"]?.intValue == 1 else {
            throw ScenarioFailure(
                .instructions, "\(record.id): action \(value["action"]?.intValue ?? -1), the text said \"Second\"")
        }
        context.accept(record.id, answer: answer, sendDismiss: false)
        context.drop(reason: "conformance: dropped before the dismiss")
        _ = try context.awaitResume(after: "a drop after an answer")
        while true {
            guard let event = context.next() else {
                throw ScenarioFailure(
                    .resend, "the answer for \(record.id) did not come again within \(context.seconds) of the resume")
            }
            if case .resent(let id) = event, id == record.id { return }
        }
    }

    static let dropUpload = ConformanceScenario(
        "drop-upload", "the connection dropped mid-upload: resume, go on from `received`, bytes and SHA-256 checked",
        needs: ["photoPicker"]
    ) { context in
        let record = context.presentPicker(
            "photoPicker", .upload(count: 1, bytes: 300_000, mimeType: "image/png"), window: 4,
            fields: [("selectionLimit", 1), ("filter", ["image"])])
        while (record.upload?.chunksStored ?? 0) < 3 {
            guard let event = context.next() else {
                throw ScenarioFailure(.instructions, "\(record.id): fewer than 3 chunks within \(context.seconds)")
            }
            if case .message(let json) = event, json["id"]?.stringValue == record.id,
                json["type"]?.stringValue != "upload"
            {
                throw ScenarioFailure(.instructions, "\(record.id) was answered before its upload was dropped")
            }
        }
        context.drop(reason: "conformance: dropped mid-upload")
        _ = try context.awaitResume(after: "a drop mid-upload")
        try context.judgePicker(record, count: 1, bytes: 300_000)
    }

    static let restart = ConformanceScenario(
        "restart", "the host restarts and forgets the session: a new session, the old dialog closed, seq from 1",
        needs: ["alert"]
    ) { context in
        let old = context.presentWait(title: "Before the restart")
        context.pause(0.3)
        context.forgetSession = true
        // The host that comes back is an older one, without `heartbeat` nor `binaryUploads`:
        // no more pings, chunks as base64 in text.
        context.offerHeartbeat = false
        context.offerBinaryUploads = false
        context.drop(code: .goingAway, reason: "host shutting down")
        while true {
            guard let event = context.next() else {
                throw ScenarioFailure(.resume, "no new connection within \(context.seconds) after the host went away")
            }
            guard case .joined(let info) = event else { continue }
            guard info.askedSession != nil else {
                throw ScenarioFailure(.resume, "after the host went away, the client said hello without `resume`")
            }
            context.judgeLastSeq(info, after: "the host went away")
            break
        }
        _ = old
        let record = context.present(
            ConformanceContext.alert(
                title: "After the restart", instructions: [.choose("OK")], actions: [("OK", "default", true)]))
        try context.judgeAlert(
            record,
            answer: try context.awaitAnswer(
                record, rule: .seqOrder,
                what: "no answer within \(context.seconds) to the first modal (seq 2) of the new session"),
            choose: "OK")
    }
}
