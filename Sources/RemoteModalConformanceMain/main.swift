import Foundation
// remote-modal-conformance: a host that runs scripted scenarios against the client that
// connects and judges it (docs/clients.md, "The conformance host").
//   remote-modal-conformance [--host H] [--port P] [--scenario NAME]... [--timeout S]
import RemoteModalConformance
import RemoteModalFlags
import RemoteModalWebSocket

let parser = FlagParser(
    [
        FlagSpec("host", value: "ADDRESS", help: "the address to listen on (default 127.0.0.1)"),
        FlagSpec("port", value: "PORT", help: "the port (default 8090; 0: any free port, printed)"),
        FlagSpec(
            "scenario", value: "NAME", help: "run only this scenario (default: all, in order)",
            repeatable: true),
        FlagSpec("timeout", value: "SECONDS", help: "the longest a scenario waits for the client (default 15)"),
        FlagSpec("connect-timeout", value: "SECONDS", help: "the longest to wait for a first client (default 120)"),
        FlagSpec("web-root", value: "PATH", help: "serve the browser page from this folder (web/), for a person"),
    ], environmentPrefix: "CONFORMANCE", maxPositional: 0)

/// A line on standard output at once (a test reads the port from the first).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("remote-modal-conformance: \(message)\n".utf8))
    exit(2)
}

do {
    let flags = try parser.parse(
        Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    if flags.has("help") {
        print(parser.help(usage: "remote-modal-conformance [flags]"))
        print("\nScenarios (a client connects to ws://HOST:PORT/ws; each waits at most --timeout):")
        let width = ConformanceScenario.all.map(\.name.count).max() ?? 0
        for scenario in ConformanceScenario.all {
            print("  \(scenario.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(scenario.summary)")
        }
        exit(0)
    }
    let scenarios: [ConformanceScenario]
    switch ConformanceScenario.named(flags.strings("scenario").flatMap { $0.split(separator: ",").map(String.init) }) {
    case .success(let chosen): scenarios = chosen
    case .failure(let unknown): fail("\(unknown)")
    }
    var configuration = WebSocketServerConfiguration()
    configuration.host = flags.string("host") ?? "127.0.0.1"
    configuration.port = try flags.int("port", in: 0...65_535) ?? 8090
    configuration.webRoot = flags.string("web-root")
    configuration.libraryLogLevel = .error
    var options = ConformanceOptions()
    options.timeout = try flags.seconds("timeout") ?? options.timeout
    options.connectTimeout = try flags.seconds("connect-timeout") ?? options.connectTimeout
    let transport = WebSocketTransport(configuration: configuration)
    let runner = ConformanceRunner(transport: transport, options: options)
    try runner.start()
    let base = "http://\(configuration.host):\(transport.port)"
    runner.setPublicBase(base)
    say("listening on ws://\(configuration.host):\(transport.port)/ws (\(scenarios.count) scenarios)")
    let report = runner.run(scenarios) { say($0) }
    say(report.text)
    runner.stop()
    exit(report.exitStatus)
} catch {
    fail("\(error)")
}
