/// A rule of `docs/protocol.md` a scenario judges a client on: the section and its words.
public struct ConformanceRule: Sendable, Equatable, CustomStringConvertible {
    /// The section of docs/protocol.md (or docs/clients.md for the instructions).
    public let section: String
    /// The rule, quoted.
    public let quote: String

    /// A rule.
    /// - Parameters:
    ///   - section: Where it is written.
    ///   - quote: Its words.
    public init(_ section: String, _ quote: String) {
        self.section = section
        self.quote = quote
    }

    /// `§N: "words"`.
    public var description: String { "\(section): \"\(quote)\"" }

    static let hello = ConformanceRule(
        "protocol.md §12.1", "MUST send `hello` first, with the capabilities it really implements.")
    static let exactlyOnce = ConformanceRule(
        "protocol.md §12.4",
        "MUST send at most one answer per modal as the person's choice, keep it until that modal's `dismiss`")
    static let forget = ConformanceRule(
        "protocol.md §5",
        "Once it has processed a modal's `dismiss`, a client MUST forget that modal's kept answer and MUST NOT send it again."
    )
    static let noPing = ConformanceRule(
        "protocol.md §3", "MUST NOT send `ping` to a host that offered no `heartbeat`")
    static let noBinary = ConformanceRule(
        "protocol.md §7", "MUST NOT send binary chunks to a host whose `welcome` offered no `binaryUploads`")
    static let binaryChunk = ConformanceRule(
        "protocol.md §7",
        "A binary chunk is two bytes of header length, the `upload` JSON without `data`, then the chunk's bytes")
    static let dismiss = ConformanceRule(
        "protocol.md §12.5", "MUST close a dialog on its `dismiss`, any reason")
    static let resend = ConformanceRule(
        "protocol.md §9",
        "After `welcome` the client MUST send again every answer it sent that has not seen its `dismiss` yet")
    static let resume = ConformanceRule(
        "protocol.md §9",
        "A client resumes by sending `hello` with `resume.session` (and SHOULD send `resume.lastSeq`).")
    static let lastSeq = ConformanceRule(
        "protocol.md §4", "A client SHOULD keep the highest `seq` it processed and send it as `resume.lastSeq`.")
    static let newSession = ConformanceRule(
        "protocol.md §9",
        "The client's modals of the old session are gone; it MUST close them (and SHOULD say they were cancelled), forget its kept answers and reset its `seq`."
    )
    static let window = ConformanceRule(
        "protocol.md §7", "A client MUST keep at most `uploadWindow` chunks sent and not yet acknowledged.")
    static let chunks = ConformanceRule(
        "protocol.md §7", "Any other offset MUST equal the bytes the host holds of that file.")
    static let base64 = ConformanceRule(
        "protocol.md §7",
        "`data`: the chunk's bytes, **standard base64** (RFC 4648 section 4: `A-Z a-z 0-9 + /`, with `=` padding, no line breaks)"
    )
    static let chunkSize = ConformanceRule(
        "protocol.md §7", "`data`: at most 32,768 bytes before encoding")
    static let chunkFields = ConformanceRule(
        "protocol.md §7", "`name`, `mimeType`: the same in every chunk of the file; `size`: the same in every chunk")
    static let lastChunk = ConformanceRule(
        "protocol.md §7", "`last`: `true` on the file's final chunk only: with it, the bytes held MUST equal `size`.")
    static let chunkShape = ConformanceRule(
        "protocol.md §10",
        "`bad_message`: valid JSON but not a valid message: a missing field, a wrong type, a value out of range")
    static let accepted = ConformanceRule(
        "protocol.md §7", "a file's offset-0 chunk must declare a `mimeType` of an accepted kind")
    static let stayed = ConformanceRule(
        "clients.md \"The conformance host\"",
        "A client stays connected from its first `hello` to the close 1000 `conformance complete` (a drop the host makes aside)."
    )
    static let uploadResult = ConformanceRule(
        "protocol.md §6",
        "`items[i]` describes file `i` of the uploads, in order: `name` and `mimeType` as uploaded, `size` in bytes, `sha256` the lower-case hex SHA-256 of the bytes."
    )
    static let unknownValues = ConformanceRule(
        "protocol.md §2", "A client MUST ignore fields it does not know, in every object.")
    static let growable = ConformanceRule(
        "protocol.md §2", "A client MUST NOT refuse or drop a message for such a value")
    static let disabled = ConformanceRule(
        "protocol.md §5", "MUST NOT let the person pick an action whose last state is disabled.")
    static let answerFormat = ConformanceRule(
        "protocol.md §6", "the answer format of the kind (an object for every built-in kind)")
    static let hostCallback = ConformanceRule(
        "protocol.md §6", "The client sends **no** `result` (the host refuses one with `bad_message`).")
    static let instructions = ConformanceRule(
        "clients.md \"The conformance host\"", "the modal's own text says what to answer")
    static let seqOrder = ConformanceRule(
        "protocol.md §4", "A `welcome` with `resumed: false` starts again from 0.")
}

/// A rule broken, and what was seen.
public struct ConformanceViolation: Sendable, Equatable, CustomStringConvertible {
    /// The rule.
    public let rule: ConformanceRule
    /// What the client did, in words.
    public let detail: String

    /// A violation.
    /// - Parameters:
    ///   - rule: The rule broken.
    ///   - detail: What was seen.
    public init(rule: ConformanceRule, detail: String) {
        self.rule = rule
        self.detail = detail
    }

    /// The detail, then the rule.
    public var description: String { "\(detail) (\(rule))" }

    /// At most `limit` findings of each rule, in order, then one "and N more like it" per
    /// rule: a client that breaks a rule on every chunk is told once, not a thousand times.
    /// - Parameters:
    ///   - findings: In the order found.
    ///   - limit: How many of one rule are kept.
    /// - Returns: The findings kept and a count line per rule that had more.
    public static func capped(_ findings: [ConformanceViolation], limit: Int = 3) -> [ConformanceViolation] {
        var kept: [ConformanceViolation] = []
        var more: [(rule: ConformanceRule, count: Int)] = []
        for finding in findings {
            if kept.count(where: { $0.rule == finding.rule }) < limit {
                kept.append(finding)
            } else if let index = more.firstIndex(where: { $0.rule == finding.rule }) {
                more[index].count += 1
            } else {
                more.append((finding.rule, 1))
            }
        }
        return kept + more.map { ConformanceViolation(rule: $0.rule, detail: "and \($0.count) more like it") }
    }
}

/// The verdict on one scenario.
public struct ScenarioOutcome: Sendable, Equatable {
    /// How it ended.
    public enum Verdict: String, Sendable, Equatable {
        /// Every check held.
        case pass = "PASS"
        /// A rule was broken (or the client did not do what the modal said in time).
        case fail = "FAIL"
        /// The client did not advertise a kind the scenario needs.
        case skip = "SKIP"
    }

    /// The scenario's name.
    public let name: String
    /// The verdict.
    public var verdict: Verdict
    /// The rules broken, first first.
    public var violations: [ConformanceViolation]
    /// Why it was skipped, when it was.
    public var note: String?
    /// SHOULDs not followed: said, never a FAIL.
    public var warnings: [ConformanceViolation] = []

    /// An outcome.
    /// - Parameters:
    ///   - name: The scenario.
    ///   - verdict: The verdict.
    ///   - violations: The rules broken.
    ///   - note: A word on a skip.
    public init(name: String, verdict: Verdict, violations: [ConformanceViolation] = [], note: String? = nil) {
        self.name = name
        self.verdict = verdict
        self.violations = violations
        self.note = note
    }
}

/// Every scenario's outcome, and the text printed for them.
public struct ConformanceReport: Sendable, Equatable {
    /// In the order run.
    public var outcomes: [ScenarioOutcome]

    /// A report.
    /// - Parameter outcomes: The outcomes, in order.
    public init(outcomes: [ScenarioOutcome]) { self.outcomes = outcomes }

    /// The scenarios that failed.
    public var failures: [ScenarioOutcome] { outcomes.filter { $0.verdict == .fail } }

    /// The exit status: 0 when nothing failed, else 1.
    public var exitStatus: Int32 { failures.isEmpty ? 0 : 1 }

    /// One line per scenario (`PASS name`), one indented line per rule broken, and a summary
    /// naming each failed scenario and its first rule; "all N scenarios passed" only when
    /// none failed and none was skipped, and a line naming the skipped ones when any was.
    public var text: String {
        let width = outcomes.map(\.name.count).max() ?? 0
        var lines: [String] = []
        for outcome in outcomes {
            let padded = outcome.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let line = "\(outcome.verdict.rawValue) \(padded)\(outcome.note.map { "  (\($0))" } ?? "")"
            lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
            for violation in outcome.violations {
                lines.append("     \(violation.detail)")
                lines.append("     rule: \(violation.rule)")
            }
            for warning in outcome.warnings {
                lines.append("     warning: \(warning.detail)")
                lines.append("     rule: \(warning.rule)")
            }
        }
        let warned = outcomes.filter { !$0.warnings.isEmpty }.map(\.name)
        let passed = outcomes.filter { $0.verdict == .pass }.count
        let skipped = outcomes.filter { $0.verdict == .skip }.map(\.name)
        if failures.isEmpty && skipped.isEmpty {
            lines.append("conformance: all \(passed) scenarios passed")
        } else if failures.isEmpty {
            lines.append("conformance: \(passed) of \(outcomes.count) scenarios passed; not all passed:")
        } else {
            let named = failures.map { "\($0.name) (\($0.violations.first?.rule.section ?? "?"))" }
            lines.append(
                "conformance: \(failures.count) of \(outcomes.count) scenarios failed: \(named.joined(separator: ", "))"
            )
        }
        // A skip checked nothing: said on a line of its own, never folded into "passed".
        if !skipped.isEmpty {
            lines.append(
                "conformance: \(skipped.count) skipped, not checked (a kind not advertised): "
                    + skipped.joined(separator: ", "))
        }
        // A SHOULD not followed fails nothing, but is said where it cannot be missed.
        if !warned.isEmpty {
            lines.append(
                "conformance: \(warned.count) with warnings (a SHOULD not followed): " + warned.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}

/// A scenario's end on a broken rule.
struct ScenarioFailure: Error {
    let violation: ConformanceViolation

    init(_ rule: ConformanceRule, _ detail: String) {
        violation = ConformanceViolation(rule: rule, detail: detail)
    }
}
