// modal-bench: load generator. Parses flags and runs the library's workloads.
//   modal-bench echo --url URL [--connections N] [--messages M] [--window W] [--rate R] [--payload B]
//   modal-bench idle --url URL --count N --pid PID
//   modal-bench roundtrip --url URL --sessions N [--seconds S] [--warmup S] [--host-report]
//   modal-bench storm --url URL --count N
//   modal-bench resume --url URL --count N
// Every command prints one tab-separated row (label first); see docs/benchmarks.md.
import Bench
import Flags
import Foundation

let parser = FlagParser(
    [
        FlagSpec("url", value: "URL", help: "server URL (ws://127.0.0.1:8080/ws)"),
        FlagSpec("connections", value: "N", help: "connections (echo)"),
        FlagSpec("messages", value: "M", help: "messages per connection, or in total with --rate"),
        FlagSpec("window", value: "W", help: "messages in flight per connection (closed loop)"),
        FlagSpec("rate", value: "R", help: "total messages a second (open loop)"),
        FlagSpec("payload", value: "BYTES", help: "message size"),
        FlagSpec("subprotocol", value: "NAME", help: "subprotocol to offer"),
        FlagSpec("count", value: "N", help: "idle connections (idle)"),
        FlagSpec("pid", value: "PID", help: "server process whose memory to read (idle)"),
        FlagSpec("label", value: "TEXT", help: "row label"),
        FlagSpec("sessions", value: "N", help: "concurrent sessions (roundtrip)"),
        FlagSpec("seconds", value: "S", help: "seconds measured (roundtrip; echo: closed loop for S seconds)"),
        FlagSpec("warmup", value: "S", help: "seconds before measuring (roundtrip)"),
        FlagSpec("host-report", help: "also read the host's own figures from /bench/report (roundtrip)"),
    ], maxPositional: 1)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("modal-bench: \(message)\n".utf8))
    exit(2)
}

do {
    let flags = try parser.parse(Array(CommandLine.arguments.dropFirst()))
    if flags.has("help") {
        print(parser.help(usage: "modal-bench echo|idle|roundtrip|storm|resume [flags]"))
        exit(0)
    }
    guard let url = flags.string("url") else { fail("--url is required") }
    let label = flags.string("label") ?? url
    switch flags.positional.first {
    case "echo":
        var load = EchoLoad(url: url)
        load.connections = try flags.int("connections", in: 1...20_000) ?? load.connections
        load.messages = try flags.int("messages", in: 1...100_000_000) ?? load.messages
        load.window = try flags.int("window", in: 1...10_000) ?? load.window
        load.payloadBytes = try flags.int("payload", in: 24...1_000_000) ?? load.payloadBytes
        load.rate = try flags.int("rate", in: 1...10_000_000).map(Double.init)
        load.subprotocol = flags.string("subprotocol")
        load.seconds = try flags.seconds("seconds")
        let result = try load.run()
        print(
            String(
                format: "%@\t%.0f\t%.1f\t%.1f\t%.1f\t%d", label, result.messagesPerSecond, result.latency.p50,
                result.latency.p99, result.latency.p999, result.lost))
    case "idle":
        guard let pid = try flags.int("pid", in: 1...Int(Int32.max)).map(Int32.init) else { fail("--pid is required") }
        let count = try flags.int("count", in: 1...100_000) ?? 1_000
        let before = residentKiB(pid: pid) ?? 0
        let idle = try IdleConnections(
            url: url, count: count, subprotocol: flags.string("subprotocol"),
            hello: ProcessInfo.processInfo.environment["BENCH_HELLO"])
        Thread.sleep(forTimeInterval: 2)
        let after = residentKiB(pid: pid) ?? 0
        print(
            String(
                format: "%@\t%d\t%d\t%d\t%.2f", label, idle.count, before, after, Double(after - before) / Double(count)
            ))
        idle.release()
    case "roundtrip":
        var load = ModalRoundTrip(url: url)
        load.sessions = try flags.int("sessions", in: 1...19_000) ?? load.sessions
        load.seconds = try flags.seconds("seconds") ?? load.seconds
        load.warmupSeconds = try flags.seconds("warmup") ?? load.warmupSeconds
        let hostReport = flags.has("host-report")
        var report = "{}"
        let result = try load.run { measuring in
            guard hostReport else { return }
            let body = httpGet(webSocketURL: url, path: "/bench/report?reset=1")
            if !measuring { report = body ?? "{}" }
        }
        // label, round trips/s, client p50, p99, p99.9 (µs), host report (JSON)
        print(
            String(
                format: "%@\t%.0f\t%.1f\t%.1f\t%.1f\t%@", label, result.roundTripsPerSecond, result.latency.p50,
                result.latency.p99, result.latency.p999, report))
    case "storm":
        var load = ConnectionStorm(url: url)
        load.count = try flags.int("count", in: 1...19_000) ?? load.count
        let result = try load.run()
        // label, welcomed, seconds, connect-to-welcome p50, p99, max (µs)
        print(
            String(
                format: "%@\t%d\t%.3f\t%.1f\t%.1f\t%.1f", label, result.welcomed, result.seconds,
                result.latency.p50, result.latency.p99, result.latency.max))
    case "resume":
        var load = ResumeLoad(url: url)
        load.count = try flags.int("count", in: 1...100_000) ?? load.count
        let latency = try load.run()
        // label, resumes, reconnect-to-present p50, p99, max (µs)
        print(String(format: "%@\t%d\t%.1f\t%.1f\t%.1f", label, latency.count, latency.p50, latency.p99, latency.max))
    default:
        fail("say echo, idle, roundtrip, storm or resume (see --help)")
    }
} catch {
    fail("\(error)")
}
