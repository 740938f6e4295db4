import Foundation
import RemoteModalClient
import RemoteModalProtocol
import Testing

/// The shared client scenarios, `Tests/Fixtures/client-scenarios/*.json` (format in its
/// README), against `ClientStateMachine`; `Tests/js/client-scenarios.test.mjs` runs the same
/// files against the page's machine, so the two clients cannot drift apart.
func clientScenarioFolder(file: String = #filePath) -> URL {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/client-scenarios")
}

/// The scenario files, sorted.
func clientScenarioNames() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: clientScenarioFolder().path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted()
}

@Suite("Shared client scenarios")
struct SharedScenarioTests {
    @Test func thereAreScenariosToRun() {
        #expect(clientScenarioNames().count >= 12)
    }

    @Test(arguments: clientScenarioNames())
    func scenario(name: String) throws {
        let data = try Data(contentsOf: clientScenarioFolder().appendingPathComponent(name))
        let scenario = try JSONParser().parse(String(decoding: data, as: UTF8.self))
        var runner = ScenarioRunner()
        let problems = try runner.run(scenario)
        #expect(problems.isEmpty, "\(scenario["title"]?.stringValue ?? name):\n\(problems.joined(separator: "\n"))")
    }
}

/// A scenario's step the runner does not know, or a malformed one.
struct ScenarioError: Error, CustomStringConvertible {
    var description: String
}

/// Runs one scenario's steps against a `ClientStateMachine` in virtual time.
struct ScenarioRunner {
    var machine: ClientStateMachine
    var now = 0.0
    var order = 0
    var timers: [ClientTimer: (due: Double, order: Int)] = [:]
    var queue: [ClientEvent] = []
    var draining = false
    var attempt = 0
    var sent: [JSONValue] = []
    var events: [JSONValue] = []
    var opened = 0
    var closed = 0

    init() {
        let configuration = ClientConfiguration(client: ClientDescription(kind: "test", name: "t"))
        machine = ClientStateMachine(configuration: configuration, jitter: { 1 })
        handle(.storeLoaded(nil))
    }

    mutating func run(_ scenario: JSONValue) throws -> [String] {
        guard let steps = scenario["steps"]?.arrayValue else { throw ScenarioError(description: "no steps") }
        var problems: [String] = []
        for (index, step) in steps.enumerated() {
            problems += try self.step(step).map { "step \(index + 1): \($0)" }
        }
        return problems
    }

    mutating func handle(_ event: ClientEvent) {
        queue.append(event)
        guard !draining else { return }
        draining = true
        while !queue.isEmpty {
            for action in machine.handle(queue.removeFirst()) { run(action) }
        }
        draining = false
    }

    mutating func run(_ action: ClientAction) {
        switch action {
        case .openLink(let number):
            opened += 1
            attempt = number
        case .send(_, let text): sent.append((try? JSONParser().parse(text)) ?? .string(text))
        case .sendBinary(_, let bytes):
            // The scenarios' hosts offer no binary uploads: a binary frame is a step that fails.
            Issue.record("a binary frame of \(bytes.count) bytes, not offered")
        case .closeLink: closed += 1
        case .startTimer(let timer, let seconds):
            timers[timer] = (now + seconds, order)
            order += 1
        case .cancelTimer(let timer): timers[timer] = nil
        case .readChunk(let id, let file, let offset, let length):
            queue.append(.chunkRead(id: id, file: file, offset: offset, bytes: [UInt8](repeating: 0, count: length)))
        case .releaseFiles, .persist: break
        case .emit(let update): if let event = Self.normalized(update) { events.append(event) }
        }
    }

    /// What the app heard, in the scenario's words (the README's `events`).
    static func normalized(_ update: ClientUpdate) -> JSONValue? {
        func event(_ name: String, _ pairs: (String, JSONValue)...) -> JSONValue {
            .object([("event", .string(name))] + pairs)
        }
        switch update {
        case .connection(.connected(let resumed)): return event("connected", ("resumed", .bool(resumed)))
        case .connection(.reconnecting(_, let retryIn, _)): return event("reconnecting", ("delay", .number(retryIn)))
        case .connection(.stopped): return event("stopped")
        case .present(let form, _): return event("present", ("id", .string(form.id)))
        case .represent(let form): return event("represent", ("id", .string(form.id)))
        case .dismiss(let id, let end):
            let reason: String
            switch end {
            case .host(let why): reason = why.rawValue
            case .lost(.ended): reason = "ended"
            case .lost(.restarted): reason = "restarted"
            case .lost(.expired): reason = "expired"
            }
            return event("dismiss", ("id", .string(id)), ("reason", .string(reason)))
        case .answerRejected(let id, _): return event("rejected", ("id", .string(id)))
        case .uploadStopped(let id, _): return event("uploadStopped", ("id", .string(id)))
        default: return nil
        }
    }

    mutating func advance(_ seconds: Double) {
        let target = now + seconds
        while let (timer, due) = timers.filter({ $0.value.due <= target + 1e-9 })
            .min(by: { ($0.value.due, $0.value.order) < ($1.value.due, $1.value.order) })
            .map({ ($0.key, $0.value.due) })
        {
            now = max(now, due)
            timers[timer] = nil
            handle(.timerFired(timer))
        }
        now = target
    }

    mutating func step(_ step: JSONValue) throws -> [String] {
        guard case .object(let pairs) = step, pairs.count == 1, let (verb, argument) = pairs.first else {
            throw ScenarioError(description: "a step is an object with one key")
        }
        switch verb {
        case "open": handle(.linkOpened(attempt: attempt))
        case "host": handle(.textReceived(attempt: attempt, Self.encode(argument)))
        case "hostText": handle(.textReceived(attempt: attempt, argument.stringValue ?? ""))
        case "close":
            let code = UInt16(argument["code"]?.intValue ?? 1006)
            handle(.linkClosed(attempt: attempt, code: code, reason: argument["reason"]?.stringValue ?? ""))
        case "refused": handle(.linkFailed(attempt: attempt, .refused))
        case "advance": advance(argument.numberValue ?? 0)
        case "answer": handle(.answered(id: argument["id"]?.stringValue ?? "", try Self.reply(argument)))
        case "type":
            let fields = argument["textFields"]?.arrayValue?.compactMap(\.stringValue) ?? []
            handle(.typed(id: argument["id"]?.stringValue ?? "", textFields: fields))
        case "tap": handle(.tapped(control: argument.stringValue ?? ""))
        case "pick":
            let files = (argument["files"]?.arrayValue ?? []).map {
                PickedItem(
                    name: $0["name"]?.stringValue ?? "", mimeType: $0["mimeType"]?.stringValue ?? "",
                    size: $0["size"]?.intValue ?? 0, sha256: $0["sha256"]?.stringValue ?? "")
            }
            handle(.picked(id: argument["id"]?.stringValue ?? "", files: files))
        case "retryUpload": handle(.retryUpload(id: argument.stringValue ?? ""))
        case "retryNow": handle(.retryNow)
        case "expect": return expect(argument)
        default: throw ScenarioError(description: "unknown step \(verb)")
        }
        return []
    }

    static func reply(_ argument: JSONValue) throws -> FormReply {
        if let failure = argument["failure"]?.stringValue {
            guard let code = FailureCode(rawValue: failure) else {
                throw ScenarioError(description: "unknown failure code \(failure)")
            }
            return .failure(code, nil)
        }
        let fields = argument["textFields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return .answer(.action(index: argument["action"]?.intValue ?? 0, textFields: fields))
    }

    static func encode(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.output
    }

    mutating func expect(_ expected: JSONValue) -> [String] {
        var problems: [String] = []
        if let want = expected["sent"], !Self.matches(want, .array(sent)) {
            problems.append("sent \(Self.encode(.array(sent)))\n  expected \(Self.encode(want))")
        }
        if let want = expected["events"], !Self.matches(want, .array(events)) {
            problems.append("events \(Self.encode(.array(events)))\n  expected \(Self.encode(want))")
        }
        if let want = expected["opened"]?.intValue, want != opened {
            problems.append("opened \(opened), expected \(want)")
        }
        if let want = expected["closed"]?.intValue, want != closed {
            problems.append("closed \(closed), expected \(want)")
        }
        sent = []
        events = []
        opened = 0
        closed = 0
        return problems
    }

    /// Whether `actual` has everything `expected` says: objects by their expected keys,
    /// arrays element by element and of the same length, `null` for absent (or null).
    static func matches(_ expected: JSONValue, _ actual: JSONValue?) -> Bool {
        switch expected {
        case .null:
            return actual == nil || actual == .null
        case .array(let items):
            guard let actualItems = actual?.arrayValue, actualItems.count == items.count else { return false }
            return zip(items, actualItems).allSatisfy { matches($0, $1) }
        case .object(let pairs):
            guard case .object = actual else { return false }
            return pairs.allSatisfy { matches($0.1, actual?[$0.0]) }
        default:
            return expected == actual
        }
    }
}
