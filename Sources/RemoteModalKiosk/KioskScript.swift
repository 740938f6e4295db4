import Foundation
import RemoteModalClient
import RemoteModalProtocol
import RemoteModalRobot

/// An unattended kiosk's script: steps run in order, each within its timeout, answered by
/// the test robot (`ModalRobot`) on the client core, by meaning, never by simulated keys.
///
/// ```json
/// [{"wait": 5},
///  {"tap": "approve"},
///  {"expect": "Sign in", "fill": {"email": "ann@example.com", "password": "pw"}, "pick": "Sign In"},
///  {"expect": "Approve request?", "pick": "Approve", "timeout": 20},
///  {"status": "Approved by", "timeout": 10},
///  {"files": ["photo.png"]},
///  {"signIn": true},
///  {"custom": "signature", "answer": {"strokes": 3}}]
/// ```
///
/// `fill` is either a list (the form's fields in order) or an object keyed by meaning
/// (`email`, `password`, `to`, `subject`, `body`, a placeholder or a content type).
/// `files` picks files for the next photo or media picker: paths relative to the script's
/// folder, regular files only, within the picker's limits (as a person's typed paths).
/// `signIn` follows the next web authentication's address as a person's phone would.
/// `custom` names a custom kind the script answers with `answer` (any JSON); the kiosk
/// advertises `custom:NAME` for each (`customCapabilities`).
public struct KioskScript: Decodable, Sendable, Equatable {
    /// What to type into a dialog's fields.
    public enum Fill: Decodable, Sendable, Equatable {
        /// Texts for the fields in order.
        case ordered([String])
        /// Texts by the field's meaning.
        case keyed([String: String])

        /// Decodes a list or an object of strings.
        /// - Parameter decoder: The decoder.
        /// - Throws: When it is neither.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let list = try? container.decode([String].self) {
                self = .ordered(list)
            } else {
                self = .keyed(try container.decode([String: String].self))
            }
        }
    }

    /// One step.
    public struct Step: Decodable, Sendable, Equatable {
        /// Tap this control (once it is there and enabled).
        public var tap: String?
        /// Wait for a modal with this title.
        public var expect: String?
        /// Text for its fields.
        public var fill: Fill?
        /// The title of the choice to pick (once enabled); the step waits for the dismiss.
        public var pick: String?
        /// Wait for a notice containing this text.
        public var status: String?
        /// Files to pick for the next photo or media picker (relative to the script's folder).
        public var files: [String]?
        /// Follow the next web authentication's address (`true`).
        public var signIn: Bool?
        /// Wait for a modal of this custom kind and answer it with `answer`.
        public var custom: String?
        /// The custom kind's answer (the `result` value).
        public var answer: ScriptJSON?
        /// Just wait this many seconds (for example until the other kiosks of a group joined).
        public var wait: Double?
        /// Seconds to wait for the step (default 30).
        public var timeout: Double?
    }

    /// The steps.
    public var steps: [Step]
    /// The folder relative file paths start from (the script's own, when loaded from a file).
    public var folder: String?

    /// `custom:NAME` for every custom kind a step answers: the kiosk advertises these.
    public var customCapabilities: [String] {
        var seen: [String] = []
        for name in steps.compactMap(\.custom) where !seen.contains("custom:" + name) { seen.append("custom:" + name) }
        return seen
    }

    /// Decodes a script from a JSON array of steps.
    /// - Parameter decoder: The decoder.
    /// - Throws: When the JSON is not a list of steps.
    public init(from decoder: any Decoder) throws {
        steps = try decoder.singleValueContainer().decode([Step].self)
    }

    /// Loads a script file.
    /// - Parameter path: The file.
    /// - Returns: The script.
    /// - Throws: When it cannot be read or decoded.
    public static func load(_ path: String) throws -> KioskScript {
        let url = URL(fileURLWithPath: path)
        var script = try JSONDecoder().decode(KioskScript.self, from: Data(contentsOf: url))
        script.folder = url.deletingLastPathComponent().path
        return script
    }

    /// A path of a `files` step: absolute, `~`, or relative to `folder`.
    /// - Parameter path: As written.
    /// - Returns: The path to open.
    public func resolve(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        guard !expanded.hasPrefix("/"), let folder else { return expanded }
        return (folder as NSString).appendingPathComponent(expanded)
    }
}

/// Any JSON value in a script (a custom kind's answer), as the protocol's `JSONValue`.
public struct ScriptJSON: Decodable, Sendable, Equatable {
    /// The value.
    public var value: JSONValue

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes null, a boolean, a number, a string, an array or an object (keys sorted).
    /// - Parameter decoder: The decoder.
    /// - Throws: When it is none of these.
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            value = .object(
                try object.allKeys.map(\.stringValue).sorted().map {
                    ($0, try object.decode(ScriptJSON.self, forKey: Key(stringValue: $0)).value)
                })
        } else if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(ScriptJSON.self).value) }
            value = .array(values)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = .null
            } else if let bool = try? single.decode(Bool.self) {
                value = .bool(bool)
            } else if let number = try? single.decode(Double.self) {
                value = .number(number)
            } else {
                value = .string(try single.decode(String.self))
            }
        }
    }
}

/// Runs a script on a robot, logging one JSON line per event to `log`.
public struct ScriptRunner: Sendable {
    /// The script.
    public let script: KioskScript
    private let robot: ModalRobot
    private let log: @Sendable (String) -> Void

    /// Creates a runner.
    /// - Parameters:
    ///   - script: The script.
    ///   - robot: The robot on the kiosk's client.
    ///   - log: Where the JSON lines go.
    public init(script: KioskScript, robot: ModalRobot, log: @escaping @Sendable (String) -> Void) {
        self.script = script
        self.robot = robot
        self.log = log
    }

    struct TimedOut: Error {}

    struct ScriptError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs every step.
    /// - Returns: 0 when every step was done, 1 when one timed out or failed.
    public func run() async -> Int32 {
        do {
            try await within(30) { try await robot.connected() }
            log(#"{"event":"welcome"}"#)
        } catch {
            log(#"{"event":"timeout","step":0}"#)
            return 1
        }
        for (index, step) in script.steps.enumerated() {
            do {
                try await within((step.timeout ?? 30) + (step.wait ?? 0)) { try await perform(step) }
            } catch is TimedOut {
                log(#"{"event":"timeout","step":\#(index)}"#)
                return 1
            } catch {
                log(#"{"event":"failed","step":\#(index),"message":\#(Self.quote("\(error)"))}"#)
                return 1
            }
        }
        log(#"{"event":"done"}"#)
        return 0
    }

    private func perform(_ step: KioskScript.Step) async throws {
        if let seconds = step.wait {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
            log(#"{"event":"waited","seconds":\#(seconds)}"#)
        } else if let control = step.tap {
            try await robot.tap(control)
            log(#"{"event":"tap","control":\#(Self.quote(control))}"#)
        } else if let paths = step.files {
            let dialog = try await robot.dialog("a picker") { form in
                (form.kind == "photoPicker" || form.kind == "mediaPicker")
                    && (step.expect.map { form.title == $0 } ?? true)
            }
            guard let modal = await dialog.form?.modal else { throw ScriptError("the picker ended before its files") }
            switch DiskFile.open(paths.map(script.resolve), for: modal) {
            case .failure(let refusal): throw ScriptError(refusal.message)
            case .success(let files): try await dialog.pick(files)
            }
            log(#"{"event":"picked","files":\#(paths.count)}"#)
        } else if step.signIn == true {
            let outcome = try await robot.webAuthentication().signIn()
            let how = if case .callback = outcome { "callback" } else { "page" }
            log(#"{"event":"signedIn","by":"\#(how)"}"#)
        } else if let name = step.custom {
            guard let answer = step.answer else { throw ScriptError("the custom step \(name) has no answer") }
            try await robot.custom(name).answer(answer.value)
            log(#"{"event":"answered","custom":\#(Self.quote(name))}"#)
        } else if let title = step.expect {
            let dialog = try await robot.dialog("a modal titled \u{201C}\(title)\u{201D}") { $0.title == title }
            let fields = await dialog.form?.fields.map(\.key) ?? []
            switch step.fill {
            case .ordered(let texts)?:
                for (key, text) in zip(fields, texts) { try await dialog.fill(key, text) }
            case .keyed(let texts)?:
                for (key, text) in texts.sorted(by: { $0.key < $1.key }) {
                    try await dialog.fill(FieldKey(rawValue: key), text)
                }
            case nil: break
            }
            if let pick = step.pick { try await dialog.choose(.titled(pick)) }
            log(#"{"event":"answered","title":\#(Self.quote(title)),"pick":\#(Self.quote(step.pick ?? ""))}"#)
        } else if let text = step.status {
            let status = try await robot.status(containing: text)
            log(
                #"{"event":"status","level":"\#(status.level.rawValue)","text":\#(Self.quote(status.text))}"#)
        }
    }

    /// Runs `work`, throwing `TimedOut` after `seconds`.
    private func within(_ seconds: Double, _ work: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await work()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
                return false
            }
            let finished = try await group.next() ?? false
            group.cancelAll()
            if !finished { throw TimedOut() }
        }
    }

    static func quote(_ text: String) -> String {
        let data = try? JSONEncoder().encode(text)
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
