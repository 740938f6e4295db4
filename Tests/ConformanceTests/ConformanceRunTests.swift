import Dispatch
import Foundation
import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalTestSupport
import RemoteModalTransport
import Testing

@testable import RemoteModalConformance

/// A client in memory that does what the alerts' texts say, or breaks one rule on purpose.
final class ScriptedAlertClient {
    enum Fault {
        case none, answerTwice, answerChanged, answerAfterDismiss, ignoreDismiss, neverResume, noLastSeq
        /// Types what the text says but never chooses.
        case neverChoose
        /// Goes away for good after its first answer (a crash).
        case crashAfterAnswer
        /// Pings after every dialog, whether the host offered `heartbeat` or not.
        case pingAlways
        /// Keeps every answer after its dismiss, and sends them all again after a resume.
        case neverForget
        /// Sends a binary upload chunk before every answer, offered or not (§7).
        case binaryAlways
        /// Sends a binary frame whose header carries `data` before every answer (§7).
        case badBinary
    }

    let transport: InMemoryTransport
    let fault: Fault
    var connection: TestClient
    var read = 0
    var session: String?
    var lastSeq = 0
    var kept: [String: String] = [:]
    var waiting: Set<String> = []
    var finished = false
    var crashed = false
    var pings = 0
    var pongs: [Int] = []
    /// Answers whose dismiss came (for `answerAfterDismiss`, which sends them again anyway).
    var forgotten: [String] = []

    init(transport: InMemoryTransport, fault: Fault) {
        self.transport = transport
        self.fault = fault
        connection = transport.connect()
        hello()
    }

    func hello() {
        var resume = ""
        if let session, fault != .neverResume {
            let seq = fault == .noLastSeq ? "" : #","lastSeq":\#(lastSeq)"#
            resume = #","resume":{"session":"\#(session)"\#(seq)}"#
        }
        connection.send(
            raw: #"{"type":"hello","protocol":1,"client":{"kind":"test"},"capabilities":["alert"]\#(resume)}"#)
    }

    /// Reads what came; false once the run is over (closed 1000) or the client gave up.
    func step() -> Bool {
        if crashed { return true }
        let frames = connection.frames
        while read < frames.count {
            handle(frames[read])
            read += 1
        }
        if crashed { return true }
        guard let code = connection.closeCode else { return true }
        if code == .normal { return false }
        connection = transport.connect()
        read = 0
        hello()
        for answer in kept.values { connection.send(raw: answer) }
        return true
    }

    func handle(_ frame: String) {
        guard let message = try? JSONParser().parse(frame), let type = message["type"]?.stringValue else { return }
        if type == "welcome" {
            let id = message["session"]?.stringValue
            if message["resumed"]?.boolValue != true {
                kept.removeAll()
                waiting.removeAll()
                lastSeq = 0
            }
            session = id
            return
        }
        if type == "pong" {
            #expect(message["seq"] == nil, "a pong carries no seq")
            pongs.append(message["id"]?.intValue ?? -1)
            return
        }
        if let seq = message["seq"]?.intValue, type != "error" {
            guard seq > lastSeq else { return }
            lastSeq = seq
        }
        guard let id = message["id"]?.stringValue else { return }
        if type == "dismiss" {
            if let answer = kept[id] { forgotten.append(answer) }
            if fault != .neverForget { kept[id] = nil }
            if fault != .ignoreDismiss { waiting.remove(id) }
            return
        }
        guard type == "present", kept[id] == nil, !waiting.contains(id) else { return }
        for stale in waiting { connection.send(raw: #"{"type":"failure","id":"\#(stale)","code":"cancelled"}"#) }
        waiting.removeAll()
        let modal = message["modal"] ?? .null
        let steps = Instruction.parse(modal["message"]?.stringValue ?? "")
        if steps.contains(.wait) {
            waiting.insert(id)
            return
        }
        var texts = [String](repeating: "", count: modal["textFields"]?.arrayValue?.count ?? 0)
        var action: Int?
        let titles = (modal["actions"]?.arrayValue ?? []).map { $0["title"]?.stringValue ?? "" }
        for step in steps {
            switch step {
            case .type(let text, let field) where field <= texts.count: texts[field - 1] = text
            case .choose(let title): action = titles.firstIndex(of: title)
            default: break
            }
        }
        guard let action else { return }
        if fault == .neverChoose {
            let input = JSONValue.object([
                ("type", "input"), ("id", .string(id)), ("textFields", .array(texts.map { .string($0) })),
            ])
            connection.send(raw: input.jsonText)
            return
        }
        let answer = JSONValue.object([
            ("type", "result"), ("id", .string(id)),
            (
                "value",
                .object([("action", .number(Double(action))), ("textFields", .array(texts.map { .string($0) }))])
            ),
        ]).jsonText
        kept[id] = answer
        if fault == .binaryAlways || fault == .badBinary {
            let chunk = UploadChunk(
                id: id, file: 0, name: "a.png", mimeType: "image/png", size: 1, offset: 0, data: "", bytes: [0x89],
                last: true)
            var frame = chunk.binaryFrame()
            if fault == .badBinary {
                let header = Array(#"{"type":"upload","id":"\#(id)","data":"iQ=="}"#.utf8)
                frame = [UInt8(header.count >> 8), UInt8(header.count & 0xFF)] + header
            }
            connection.sendBinary(frame)
        }
        connection.send(raw: answer)
        switch fault {
        case .answerTwice:
            // The same answer again, back to back, before its dismiss can have come (§5 allows it).
            connection.send(raw: answer)
        case .answerChanged:
            let other = JSONValue.object([
                ("type", "result"), ("id", .string(id)),
                ("value", .object([("action", 0), ("textFields", .array(texts.map { .string($0) }))])),
            ])
            connection.send(raw: other.jsonText)
        case .pingAlways:
            pings += 1
            connection.send(raw: #"{"type":"ping","id":\#(pings)}"#)
        case .crashAfterAnswer:
            crashed = true
            connection.disconnect()
        case .answerAfterDismiss:
            // After acting on a later modal, so the host knows the dismiss was processed.
            for old in forgotten { connection.send(raw: old) }
            forgotten.removeAll()
        default: break
        }
    }
}

/// The runner handed to the thread that runs it (this test touches it no more meanwhile).
final class RunnerBox: @unchecked Sendable {
    let value: ConformanceRunner
    init(_ value: ConformanceRunner) { self.value = value }
}

@Suite("Conformance host: scenarios in memory")
struct ConformanceRunTests {
    static let alertScenarios = ["alert", "unknown-values", "dismiss", "drop-dialog", "drop-answer", "restart"]

    /// Runs the scenarios against a scripted client; the client is stepped on this thread
    /// until the run ends (every wait in it is bounded by the timeout). The default timeout is
    /// generous: a conforming client is done at once, and under ThreadSanitizer, with the
    /// whole suite running beside it, 5 s once ran out before an answer.
    func run(_ names: [String], fault: ScriptedAlertClient.Fault, timeout: Double = 20) throws -> ConformanceReport {
        try runWithClient(names, fault: fault, timeout: timeout).report
    }

    func runWithClient(_ names: [String], fault: ScriptedAlertClient.Fault, timeout: Double = 20) throws -> (
        report: ConformanceReport, client: ScriptedAlertClient
    ) {
        let transport = InMemoryTransport()
        var options = ConformanceOptions()
        options.timeout = timeout
        options.connectTimeout = timeout
        let runner = ConformanceRunner(transport: transport, options: options)
        try runner.start()
        let scenarios = try ConformanceScenario.named(names).get()
        let result = Locked<ConformanceReport?>(nil)
        let done = DispatchSemaphore(value: 0)
        let box = RunnerBox(runner)
        DispatchQueue.global().async {
            let report = box.value.run(scenarios)
            result.withLock { $0 = report }
            done.signal()
        }
        let client = ScriptedAlertClient(transport: transport, fault: fault)
        var running = true
        while done.wait(timeout: .now() + .milliseconds(2)) == .timedOut {
            if !client.step() {
                running = false
                break
            }
        }
        if !running { done.wait() }
        return (try #require(result.withLock { $0 }), client)
    }

    @Test(
        "a ping gets its pong (no seq) where heartbeat was offered; a ping to the restarted host, which offered none, fails restart on §3"
    )
    func heartbeatOfferedThenNot() throws {
        let (report, client) = try runWithClient(["alert", "restart"], fault: .pingAlways)
        #expect(client.pongs.starts(with: [1]), "\(client.pongs)")
        #expect(report.outcomes.map(\.verdict) == [.pass, .fail], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .noPing, "\(report.text)")
    }

    @Test(
        "binary chunks to the host that offered them are judged as chunks; to the restarted host, which offered none, they fail restart on §7"
    )
    func binaryChunksOfferedThenNot() throws {
        let report = try run(["alert", "restart"], fault: .binaryAlways)
        #expect(report.outcomes.map(\.verdict) == [.pass, .fail], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .noBinary, "\(report.text)")
    }

    @Test("a binary frame that is no well-formed chunk fails its scenario on §7")
    func malformedBinaryChunkFails() throws {
        let report = try run(["alert"], fault: .badBinary)
        #expect(report.outcomes.map(\.verdict) == [.fail], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .binaryChunk, "\(report.text)")
        #expect(report.text.contains("'data'"), "\(report.text)")
    }

    @Test("a client that follows the texts passes every alert scenario")
    func conformingClientPasses() throws {
        let report = try run(Self.alertScenarios, fault: .none)
        #expect(
            report.outcomes.map(\.verdict) == Array(repeating: .pass, count: Self.alertScenarios.count),
            "\(report.text)")
        #expect(report.exitStatus == 0)
    }

    @Test("the same answer sent twice back to back is no second answer: every alert scenario passes (§5)")
    func sameAnswerTwicePasses() throws {
        let report = try run(Self.alertScenarios, fault: .answerTwice)
        #expect(report.failures.isEmpty, "\(report.text)")
        #expect(report.outcomes.map(\.verdict) == Array(repeating: .pass, count: Self.alertScenarios.count))
    }

    @Test("a second, different answer on one connection fails the alert scenario on §12.4")
    func differentSecondAnswerFails() throws {
        let report = try run(["alert"], fault: .answerChanged)
        #expect(report.failures.map(\.name) == ["alert"], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .exactlyOnce)
    }

    @Test("the same answer again after its dismiss was processed fails on §5")
    func answerAfterProcessedDismissFails() throws {
        let report = try run(["alert"], fault: .answerAfterDismiss)
        #expect(report.failures.map(\.name) == ["alert"], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .forget)
    }

    @Test("an answer sent again after a resume, though its dismiss was processed before the drop, fails on §5")
    func answerKeptPastItsDismissFails() throws {
        let report = try run(["alert", "dismiss", "drop-dialog"], fault: .neverForget)
        #expect(report.failures.map(\.name) == ["alert"], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .forget, "\(report.text)")
        #expect(report.text.contains("on the connection before the resume"), "\(report.text)")
    }

    @Test("a resume without lastSeq (a SHOULD) is a warning, not a FAIL")
    func missingLastSeqWarns() throws {
        let report = try run(["drop-dialog", "drop-answer"], fault: .noLastSeq)
        #expect(report.failures.isEmpty, "\(report.text)")
        #expect(report.outcomes.map { $0.warnings.first?.rule } == [.lastSeq, .lastSeq], "\(report.text)")
        #expect(report.text.contains("warning: after a drop mid-dialog, the resume carried no `lastSeq`"))
        #expect(report.text.contains("conformance: 2 with warnings (a SHOULD not followed): drop-dialog, drop-answer"))
    }

    @Test("an answer for a dismissed dialog fails the dismiss scenario on §12.5")
    func ignoredDismissFails() throws {
        let report = try run(["dismiss"], fault: .ignoreDismiss)
        #expect(report.failures.map(\.name) == ["dismiss"], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .dismiss)
    }

    @Test("a new hello instead of a resume fails the drop scenarios on §9")
    func neverResumingFails() throws {
        let report = try run(["drop-answer"], fault: .neverResume, timeout: 2)
        #expect(report.failures.map(\.name) == ["drop-answer"], "\(report.text)")
        #expect(report.failures.first?.violations.first?.rule == .resume)
    }

    @Test("a timeout says what came for the modal: the input, the update it caused, no result")
    func timeoutSaysWhatCame() throws {
        let report = try run(["alert"], fault: .neverChoose, timeout: 1)
        #expect(report.failures.map(\.name) == ["alert"], "\(report.text)")
        #expect(
            report.text.contains(
                #"1 `input` came, the host sent 1 `update` (enabled now: "Cancel", "Sign In"); no result or failure"#),
            "\(report.text)")
    }

    @Test("a client that goes away is said to have gone, in its scenario and the next, not as a late hello")
    func crashedClientIsSaidToHaveGone() throws {
        let report = try run(["alert", "dismiss", "drop-dialog"], fault: .crashAfterAnswer, timeout: 1)
        #expect(report.failures.map(\.name) == ["dismiss", "drop-dialog"], "\(report.text)")
        #expect(report.failures.allSatisfy { $0.violations.first?.rule == .stayed }, "\(report.text)")
        #expect(report.text.contains("the client went away (its connection closed during"), "\(report.text)")
        #expect(report.text.contains("and did not come back"), "\(report.text)")
    }

    @Test("a client that never connects fails every scenario, within the connect timeout")
    func absentClientFails() throws {
        var options = ConformanceOptions()
        options.connectTimeout = 0.2
        let runner = ConformanceRunner(transport: InMemoryTransport(), options: options)
        try runner.start()
        let report = runner.run(try ConformanceScenario.named(["alert", "sheet"]).get())
        #expect(report.failures.map(\.name) == ["alert", "sheet"])
        #expect(report.failures.first?.violations.first?.rule == .hello)
    }
}
