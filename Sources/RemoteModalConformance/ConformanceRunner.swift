import Foundation
import RemoteModalProtocol
import RemoteModalTransport

/// The conformance host: serves one client on a transport, runs scenarios against it one
/// after the other, each within its timeout, and judges it.
///
/// ```swift
/// let runner = ConformanceRunner(transport: transport, options: options)
/// try runner.start()
/// let report = runner.run(ConformanceScenario.all) { print($0) }
/// print(report.text)
/// ```
public final class ConformanceRunner {
    private let link: ConformanceLink
    private let context: ConformanceContext

    /// A runner on a transport (not yet started).
    /// - Parameters:
    ///   - transport: Where the client connects.
    ///   - options: Timeouts and the host's own address.
    public init(transport: any HostTransport, options: ConformanceOptions) {
        link = ConformanceLink(transport: transport)
        context = ConformanceContext(link: link, options: options)
    }

    /// Starts the transport.
    /// - Throws: What the transport throws (a busy port...).
    public func start() throws { try link.start() }

    /// Sets the `http://HOST:PORT` the web-authentication URLs name (known once the port is).
    /// - Parameter base: The host's own address.
    public func setPublicBase(_ base: String) { context.options.publicBase = base }

    /// Stops the transport.
    public func stop() { link.stop() }

    /// Runs the scenarios, waits for a first client, then each scenario at most its timeout.
    /// - Parameters:
    ///   - scenarios: In order.
    ///   - log: A line per step, for the person watching.
    /// - Returns: The verdicts.
    public func run(_ scenarios: [ConformanceScenario], log: (String) -> Void = { _ in }) -> ConformanceReport {
        context.begin("connect", seconds: context.options.connectTimeout)
        guard context.awaitClient() else {
            let violation = ConformanceViolation(
                rule: .hello, detail: "no client said hello within \(Int(context.options.connectTimeout)) s")
            return ConformanceReport(
                outcomes: scenarios.map { ScenarioOutcome(name: $0.name, verdict: .fail, violations: [violation]) })
        }
        log("a client joined (capabilities: \(context.capabilities.joined(separator: ", ")))")
        var skipped: [String: String] = [:]
        var gone: String?
        for scenario in scenarios {
            context.begin(scenario.name)
            log("scenario \(scenario.name): \(scenario.summary)")
            if let gone {
                // Waited for once already: a client that went away is not waited for again.
                context.note(.stayed, "the client went away during \(gone) and did not come back")
                continue
            }
            guard context.current != nil || context.awaitClient() else {
                if let away = context.wentAway {
                    gone = away
                    context.note(
                        .stayed,
                        "the client went away (its connection closed during \(away)) and no client came back within \(context.seconds)"
                    )
                } else {
                    context.note(.resume, "no client connected within \(context.seconds) for the scenario to start")
                }
                continue
            }
            let missing = scenario.needs.filter { !context.capabilities.contains($0) }
            if !missing.isEmpty {
                skipped[scenario.name] = "not advertised: \(missing.joined(separator: ", "))"
                continue
            }
            context.status("Conformance scenario: \(scenario.name)")
            do {
                try scenario.run(context)
            } catch let failure as ScenarioFailure {
                context.note(failure.violation.rule, failure.violation.detail)
                context.disposeLeftovers(of: scenario.name)
            } catch {
                context.note(.instructions, "\(error)")
            }
            if context.current == nil, let away = context.wentAway { gone = away }
        }
        finish(log: log)
        log("upload chunks received as binary frames (protocol.md §7, \"Binary chunks\"): \(context.binaryChunks)")
        let outcomes = scenarios.map { scenario -> ScenarioOutcome in
            let violations = ConformanceViolation.capped(context.violations[scenario.name] ?? [])
            var outcome: ScenarioOutcome
            if !violations.isEmpty {
                outcome = ScenarioOutcome(name: scenario.name, verdict: .fail, violations: violations)
            } else if let note = skipped[scenario.name] {
                outcome = ScenarioOutcome(name: scenario.name, verdict: .skip, note: note)
            } else {
                outcome = ScenarioOutcome(name: scenario.name, verdict: .pass)
            }
            outcome.warnings = ConformanceViolation.capped(context.warnings[scenario.name] ?? [])
            return outcome
        }
        let report = ConformanceReport(outcomes: outcomes)
        if context.current != nil {
            let failed = report.failures.count
            context.status(
                failed == 0
                    ? "Conformance run complete: every scenario passed" : "Conformance run complete: \(failed) failed",
                level: failed == 0 ? "success" : "error")
            context.drop(code: .normal, reason: "conformance complete")
        }
        return report
    }

    /// A last alert, so that whatever the client sent for earlier modals (an answer twice, an
    /// answer to a dismissed modal) has arrived before the verdicts: one connection keeps order.
    private func finish(log: (String) -> Void) {
        context.begin("finish", seconds: min(context.options.timeout, 10))
        guard context.current != nil, context.capabilities.contains("alert") else { return }
        let record = context.present(
            ConformanceContext.alert(
                title: "Finish", instructions: [.choose("Finish")], actions: [("Finish", "default", true)]))
        if let answer = try? context.awaitAnswer(record) {
            context.accept(record.id, answer: answer)
            // What the client sends just after its last answer (an answer again after its
            // dismiss) is judged too: a bounded moment more of listening.
            context.pause(context.options.tail)
        } else {
            log("the client did not answer the closing alert")
        }
    }
}
