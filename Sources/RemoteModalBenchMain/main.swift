import Foundation
// modal-bench: load generator. Parses flags and runs the library's workloads.
//   modal-bench echo --url URL [--connections N] [--messages M] [--window W] [--rate R] [--payload B]
//   modal-bench idle --url URL --count N --pid PID
//   modal-bench roundtrip --url URL --sessions N [--seconds S] [--warmup S] [--host-report] [--pid PID]
//   modal-bench cycle --url URL --sessions N [--seconds S] [--warmup S] [--pid PID]
//   modal-bench storm --url URL --count N
//   modal-bench resume --url URL --count N
//   modal-bench upload --url URL [--sessions N] [--files F] [--file-bytes B] [--seconds S] [--pid PID] [--text-chunks]
//   modal-bench chunk [--chunks N]
//   modal-bench crowd --url URL --count N [--probes P] [--pid PID] [--hold]
// Every command prints one tab-separated row (label first); see docs/benchmarks.md.
import RemoteModalBench
import RemoteModalFlags

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
        FlagSpec("pid", value: "PID", help: "server process: its memory (idle), its CPU time (roundtrip, cycle, echo)"),
        FlagSpec("label", value: "TEXT", help: "row label"),
        FlagSpec("sessions", value: "N", help: "concurrent sessions (roundtrip, cycle)"),
        FlagSpec("seconds", value: "S", help: "seconds measured (roundtrip, cycle; echo: closed loop for S seconds)"),
        FlagSpec("warmup", value: "S", help: "seconds before measuring (roundtrip, cycle)"),
        FlagSpec("host-report", help: "also read the host's own figures from /bench/report (roundtrip)"),
        FlagSpec("pace", value: "N", help: "cycles a second each session starts at most (cycle; default: closed loop)"),
        FlagSpec("files", value: "N", help: "files in each pick (upload; default 3)"),
        FlagSpec("file-bytes", value: "B", help: "bytes of each file (upload; default 3145728)"),
        FlagSpec("chunks", value: "N", help: "32 KiB chunks timed per stage (chunk; default 2000)"),
        FlagSpec("probes", value: "P", help: "new sessions timed one at a time while the crowd is held (crowd)"),
        FlagSpec("text-chunks", help: "upload chunks as base64 in text even when the host offers binary (upload)"),
        FlagSpec("hold", help: "after the row, hold the crowd until standard input closes (crowd)"),
        FlagSpec("source", value: "ADDRESS", help: "local IP address to connect from, e.g. 127.0.0.2 (crowd)"),
    ], maxPositional: 1)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("modal-bench: \(message)\n".utf8))
    exit(2)
}

do {
    let flags = try parser.parse(Array(CommandLine.arguments.dropFirst()))
    if flags.has("help") {
        print(parser.help(usage: "modal-bench echo|idle|roundtrip|cycle|storm|resume|upload|chunk|crowd [flags]"))
        print(
            """

            output: one tab-separated row, label first (times in µs):
              echo       label, messages/s, p50, p99, p99.9, lost, server CPU per echo (with --pid and --seconds)
              idle       label, connections, server RSS KiB before, after, KiB per connection
              roundtrip  label, round trips/s, p50, p99, p99.9, host report (JSON; with --host-report),
                         server CPU per round trip (with --pid)
              cycle      label, cycles/s, p50, p99, p99.9, cycles (all, until closed), server CPU per cycle (with --pid)
              storm      label, welcomed, seconds, connect-to-welcome p50, p99, max
              resume     label, resumes, reconnect-to-present p50, p99, max
              upload     label, MB/s acknowledged, picks (all), server CPU ms per MB (with --pid)
              chunk      one row a stage: stage, mean, p50, p99, max (µs per 32 KiB chunk); no --url
              crowd      label, sessions held, seconds to open them, server RSS KiB before, after, KiB per
                         session (with --pid), then connect-to-welcome p50, p99, max of the probes, probes
                         not welcomed within 10 s, crowd connections cut before their welcome and opened again
            upload: the demo host's photo picker (issue 31): each session taps photo, uploads its files at the
              full window the present offers, answers with their SHA-256, waits for the status and the idle
              controls, and taps again.
            cycle: the demo host's sign-in cycle (docs/protocol.md, the demo host): tap signIn, expect controls (busy), present,
              answer Cancel, expect dismiss, status "Sign in cancelled", controls (idle), in any order but the
              busy controls before the idle ones; any error or other message fails the run (exit 2).
              Run modal-host with --rate and --burst raised.
            """)
        exit(0)
    }
    if flags.positional.first == "chunk" {
        var load = ChunkCost()
        load.chunks = try flags.int("chunks", in: 1...1_000_000) ?? load.chunks
        for row in try load.run() {
            print(
                String(
                    format: "%@\t%.1f\t%.1f\t%.1f\t%.1f", row.stage, row.mean, row.latency.p50, row.latency.p99,
                    row.latency.max))
        }
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
        load.serverPID = try flags.int("pid", in: 1...Int(Int32.max)).map(Int32.init)
        let result = try load.run()
        print(
            String(
                format: "%@\t%.0f\t%.1f\t%.1f\t%.1f\t%d\t%@", label, result.messagesPerSecond, result.latency.p50,
                result.latency.p99, result.latency.p999, result.lost,
                result.serverCPUMicrosPerMessage.map { String(format: "%.2f", $0) } ?? ""))
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
        let pid = try flags.int("pid", in: 1...Int(Int32.max)).map(Int32.init)
        var report = "{}"
        var cpu: (before: Double?, after: Double?) = (nil, nil)
        let result = try load.run { measuring in
            if let pid {
                if measuring {
                    cpu.before = processCPUSeconds(pid: pid)
                } else {
                    cpu.after = processCPUSeconds(pid: pid)
                }
            }
            guard hostReport else { return }
            let body = httpGet(webSocketURL: url, path: "/bench/report?reset=1")
            if !measuring { report = body ?? "{}" }
        }
        var cpuPerRoundTrip = ""
        if let before = cpu.before, let after = cpu.after, result.latency.count > 0 {
            cpuPerRoundTrip = String(format: "%.2f", (after - before) * 1e6 / Double(result.latency.count))
        }
        // label, round trips/s, client p50, p99, p99.9 (µs), host report (JSON), server CPU µs per round trip
        print(
            String(
                format: "%@\t%.0f\t%.1f\t%.1f\t%.1f\t%@\t%@", label, result.roundTripsPerSecond, result.latency.p50,
                result.latency.p99, result.latency.p999, report, cpuPerRoundTrip))
    case "cycle":
        var load = SignInCycle(url: url)
        load.sessions = try flags.int("sessions", in: 1...19_000) ?? load.sessions
        load.seconds = try flags.seconds("seconds") ?? load.seconds
        load.warmupSeconds = try flags.seconds("warmup") ?? load.warmupSeconds
        load.serverPID = try flags.int("pid", in: 1...Int(Int32.max)).map(Int32.init)
        load.pace = try flags.int("pace", in: 1...100_000).map(Double.init)
        let result = try load.run()
        // label, cycles/s, tap-to-last-message p50, p99, p99.9 (µs), cycles in all, server CPU µs per cycle
        print(
            String(
                format: "%@\t%.0f\t%.1f\t%.1f\t%.1f\t%d\t%@", label, result.cyclesPerSecond, result.latency.p50,
                result.latency.p99, result.latency.p999, result.totalCycles,
                result.serverCPUMicrosPerCycle.map { String(format: "%.2f", $0) } ?? ""))
    case "upload":
        var load = UploadLoad(url: url)
        load.sessions = try flags.int("sessions", in: 1...1_000) ?? load.sessions
        load.filesPerPick = try flags.int("files", in: 1...3) ?? load.filesPerPick
        load.fileBytes = try flags.int("file-bytes", in: 1...10 * 1_048_576) ?? load.fileBytes
        load.seconds = try flags.seconds("seconds") ?? load.seconds
        load.warmupSeconds = try flags.seconds("warmup") ?? load.warmupSeconds
        load.serverPID = try flags.int("pid", in: 1...Int(Int32.max)).map(Int32.init)
        load.binary = !flags.has("text-chunks")
        load.binary = !flags.has("text-chunks")
        let result = try load.run()
        // label, MB/s acknowledged, picks in all, server CPU ms per MB
        print(
            String(
                format: "%@\t%.1f\t%d\t%@", label, result.megabytesPerSecond, result.picks,
                result.serverCPUMillisPerMegabyte.map { String(format: "%.2f", $0) } ?? ""))
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
    case "crowd":
        let count = try flags.int("count", in: 1...100_000) ?? 10_000
        let probes = try flags.int("probes", in: 1...100_000) ?? 200
        let pid = try flags.int("pid", in: 1...Int(Int32.max)).map(Int32.init)
        let before = pid.flatMap(residentKiB(pid:))
        let crowd = try Crowd(localAddress: flags.string("source"))
        let result = try crowd.open(url: url, count: count, probes: probes)
        // Let the host's allocator settle (a welcome is written before its buffers go back).
        Thread.sleep(forTimeInterval: 1)
        let after = pid.flatMap(residentKiB(pid:))
        let perSession = before.flatMap { before in after.map { Double($0 - before) / Double(count) } }
        // Written straight to the descriptor: the driver reads the row while the crowd is held.
        let row = String(
            format: "%@\t%d\t%.2f\t%@\t%@\t%@\t%.1f\t%.1f\t%.1f\t%d\t%d\n", label, result.held, result.openSeconds,
            before.map(String.init) ?? "", after.map(String.init) ?? "",
            perSession.map { String(format: "%.2f", $0) } ?? "", result.probes.p50, result.probes.p99,
            result.probes.max, result.lostProbes, result.reopened)
        FileHandle.standardOutput.write(Data(row.utf8))
        if flags.has("hold") { while readLine() != nil {} }
        crowd.release()
    default:
        fail("say echo, idle, roundtrip, cycle, storm, resume, upload, chunk or crowd (see --help)")
    }
} catch {
    fail("\(error)")
}
