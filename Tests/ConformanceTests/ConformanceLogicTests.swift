import Foundation
import RemoteModalProtocol
import Testing

@testable import RemoteModalConformance

@Suite("Conformance host: instructions, uploads, report")
struct ConformanceLogicTests {
    @Test("every instruction reads back as written")
    func instructionsRoundTrip() {
        let all: [Instruction] = [
            .type("ann@example.com", field: 1), .type("a \"quoted\" text", field: 12), .choose("Sign In"), .wait, .send,
            .upload(count: 1, bytes: 150_000, mimeType: "audio/mpeg"),
            .upload(count: 2, bytes: 40_000, mimeType: "image/png"), .answer(#"{"echo":"K7","n":2}"#),
        ]
        #expect(Instruction.parse(Instruction.text(all)) == all)
        #expect(
            Instruction.upload(count: 2, bytes: 40_000, mimeType: "image/png").description
                == #"Upload 2 files of 40000 bytes each as "image/png"."#)
    }

    @Test("lines that are no instruction are skipped")
    func otherLinesSkipped() {
        #expect(
            Instruction.parse("Hello there\nChoose \"OK\"\nChoose \"OK\".\nType \"x\" in field 0.") == [.choose("OK")])
    }

    static func chunk(file: Int = 0, offset: Int, bytes: [UInt8], size: Int, last: Bool, mime: String = "image/png")
        -> JSONValue
    {
        .object([
            ("type", "upload"), ("id", "m1"), ("file", .number(Double(file))), ("name", "a.png"),
            ("mimeType", .string(mime)), ("size", .number(Double(size))), ("offset", .number(Double(offset))),
            ("data", .string(Data(bytes).base64EncodedString())), ("last", .bool(last)),
        ])
    }

    @Test("a chunk past the window is an overrun and is not stored")
    func windowOverrun() {
        var upload = UploadState(window: 2, accepts: ["image/"])
        let bytes = [UInt8](repeating: 7, count: 10)
        #expect(
            upload.receive(Self.chunk(offset: 0, bytes: bytes, size: 40, last: false)) == .stored(file: 0, received: 10)
        )
        #expect(
            upload.receive(Self.chunk(offset: 10, bytes: bytes, size: 40, last: false))
                == .stored(file: 0, received: 20))
        #expect(upload.receive(Self.chunk(offset: 20, bytes: bytes, size: 40, last: false)) == .overrun(inFlight: 2))
        upload.acknowledged(1)
        #expect(
            upload.receive(Self.chunk(offset: 20, bytes: bytes, size: 40, last: false))
                == .stored(file: 0, received: 30))
        #expect(upload.maxInFlight == 2)
        upload.connectionLost()
        #expect(upload.inFlight == 0)
        #expect(upload.received.map(\.bytes) == [30])
    }

    @Test("an offset that does not continue the file is refused with the bytes held")
    func offsetRefused() {
        var upload = UploadState(window: 8, accepts: ["image/"])
        let bytes = [UInt8](repeating: 1, count: 10)
        _ = upload.receive(Self.chunk(offset: 0, bytes: bytes, size: 30, last: false))
        guard case .invalid(0, 10, _) = upload.receive(Self.chunk(offset: 20, bytes: bytes, size: 30, last: false))
        else {
            Issue.record("a gap was stored")
            return
        }
        guard
            case .invalid(0, 10, _) = upload.receive(
                Self.chunk(offset: 0, bytes: bytes, size: 30, last: false, mime: "text/plain"))
        else {
            Issue.record("a text file was taken by a photo picker")
            return
        }
    }

    @Test("the chunks in flight behind a refused one are replied to, not judged again; then judging resumes")
    func chunksInFlightAfterARefusal() {
        var upload = UploadState(window: 4, accepts: ["image/"])
        let bytes = [UInt8](repeating: 3, count: 10)
        #expect(
            upload.receive(Self.chunk(offset: 0, bytes: bytes, size: 100, last: false))
                == .stored(file: 0, received: 10))
        var bad = Self.chunk(offset: 10, bytes: bytes, size: 100, last: false)
        if case .object(var pairs) = bad, let index = pairs.firstIndex(where: { $0.0 == "data" }) {
            pairs[index].1 = "not base64!"
            bad = .object(pairs)
        }
        guard case .invalid(0, 10, let reason) = upload.receive(bad) else {
            Issue.record("a chunk that is not base64 was stored")
            return
        }
        #expect(UploadState.rule(for: reason) == .base64)
        // The window's other three were sent before the refusal could be seen.
        for offset in [20, 30, 40] {
            guard
                case .inFlight(0, 10, _) = upload.receive(
                    Self.chunk(offset: offset, bytes: bytes, size: 100, last: false))
            else {
                Issue.record("chunk at \(offset), in flight behind the refusal, was judged as a new violation")
                return
            }
        }
        // A fourth is more than the window could have held: a violation again.
        guard
            case .invalid(0, 10, let gap) = upload.receive(Self.chunk(offset: 50, bytes: bytes, size: 100, last: false))
        else {
            Issue.record("a chunk beyond the window behind the refusal was not judged")
            return
        }
        #expect(UploadState.rule(for: gap) == .chunks)
        // Going on from `held` is stored, and ends the allowance.
        #expect(
            upload.receive(Self.chunk(offset: 10, bytes: bytes, size: 100, last: false))
                == .stored(file: 0, received: 20))
        #expect(upload.grace == 0)
    }

    @Test("repeated findings are capped per rule: the first three, then one line with the count")
    func findingsCapped() {
        let many = (1...1_647).map {
            ConformanceViolation(rule: .window, detail: "a chunk of m2 arrived with 2 unacknowledged (\($0))")
        }
        let other = ConformanceViolation(rule: .base64, detail: "not base64")
        let capped = ConformanceViolation.capped(many + [other])
        #expect(capped.count == 5)
        #expect(capped.map(\.rule) == [.window, .window, .window, .base64, .window])
        #expect(capped.last?.detail == "and 1644 more like it")
        let report = ConformanceReport(outcomes: [ScenarioOutcome(name: "media", verdict: .fail, violations: capped)])
        #expect(report.text.split(separator: "\n").count == 12, "\(report.text)")
    }

    @Test("a result is judged on the bytes held: size and SHA-256")
    func resultJudged() {
        var upload = UploadState(window: 8, accepts: [])
        let bytes: [UInt8] = Array("abc".utf8)
        _ = upload.receive(Self.chunk(offset: 0, bytes: bytes, size: 3, last: true))
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        func item(_ hash: String, size: Int = 3) -> JSONValue {
            .object([
                (
                    "items",
                    .array([
                        .object([
                            ("name", "a.png"), ("mimeType", "image/png"), ("size", .number(Double(size))),
                            ("sha256", .string(hash)),
                        ])
                    ])
                )
            ])
        }
        #expect(upload.judge(result: item(sha)) == nil)
        #expect(upload.judge(result: item(String(repeating: "0", count: 64)))?.contains("SHA-256") == true)
        #expect(upload.judge(result: item(sha, size: 4))?.contains("size") == true)
        #expect(upload.judge(result: .object([("items", [])]))?.contains("lists 0") == true)
    }

    @Test("the report names each failed scenario and its rule, and exits 1")
    func reportNamesFailures() {
        let violation = ConformanceViolation(rule: .window, detail: "a chunk of m3 arrived with 4 unacknowledged")
        let report = ConformanceReport(outcomes: [
            ScenarioOutcome(name: "alert", verdict: .pass),
            ScenarioOutcome(name: "media", verdict: .fail, violations: [violation]),
            ScenarioOutcome(name: "custom", verdict: .skip, note: "not advertised: custom:conformance"),
        ])
        #expect(report.exitStatus == 1)
        #expect(report.text.contains("FAIL media"))
        #expect(report.text.contains("protocol.md §7"))
        #expect(report.text.contains("1 of 3 scenarios failed: media (protocol.md §7)"))
        #expect(ConformanceReport(outcomes: [ScenarioOutcome(name: "alert", verdict: .pass)]).exitStatus == 0)
    }

    @Test("a skipped scenario is not a pass: the summary names it and never says all passed")
    func skipsAreSaid() {
        let report = ConformanceReport(outcomes: [
            ScenarioOutcome(name: "alert", verdict: .pass),
            ScenarioOutcome(name: "custom", verdict: .skip, note: "not advertised: custom:conformance"),
        ])
        #expect(!report.text.contains("conformance: all"), "\(report.text)")
        #expect(report.text.contains("1 of 2 scenarios passed; not all passed"), "\(report.text)")
        #expect(report.text.contains("1 skipped, not checked (a kind not advertised): custom"), "\(report.text)")
        let failed = ConformanceReport(outcomes: [
            ScenarioOutcome(
                name: "media", verdict: .fail,
                violations: [ConformanceViolation(rule: .window, detail: "an overrun")]),
            ScenarioOutcome(name: "photo", verdict: .skip, note: "not advertised: photoPicker"),
        ])
        #expect(failed.text.contains("1 skipped, not checked (a kind not advertised): photo"), "\(failed.text)")
        let passed = ConformanceReport(outcomes: [ScenarioOutcome(name: "alert", verdict: .pass)])
        #expect(passed.text.hasSuffix("conformance: all 1 scenarios passed"))
    }

    @Test("--scenario names are checked against the catalogue")
    func scenarioNames() throws {
        #expect(try ConformanceScenario.named([]).get().count == ConformanceScenario.all.count)
        #expect(try ConformanceScenario.named(["restart", "alert"]).get().map(\.name) == ["alert", "restart"])
        #expect(throws: ConformanceScenario.UnknownScenario.self) { try ConformanceScenario.named(["nope"]).get() }
        #expect(Set(ConformanceScenario.all.map(\.name)).count == ConformanceScenario.all.count)
    }
}
