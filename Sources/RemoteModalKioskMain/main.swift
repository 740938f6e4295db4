import Foundation
// kiosk: a terminal thin client. Parses flags and runs the Kiosk library.
//   kiosk ws://host:8080/ws --name lobby-1 --group lobby [--token T] [--ca-file F] [--script FILE]
import RemoteModalFlags
import RemoteModalKiosk
import RemoteModalProtocol

let parser = FlagParser(
    [
        FlagSpec("name", value: "NAME", help: "the kiosk's name (default: the host name)"),
        FlagSpec("group", value: "GROUP", help: "the group it belongs to"),
        FlagSpec("token", value: "TOKEN", help: "access token for the host"),
        FlagSpec("ca-file", value: "PATH", help: "PEM certificate authorities to trust for wss://"),
        FlagSpec(
            "script", value: "FILE",
            help: "unattended mode: follow this JSON script on the test robot, log JSON lines (docs/kiosk.md)"),
        FlagSpec(
            "forget-typed-after", value: "SECONDS",
            help: "clear a notice quoting unsent typed text from the screen after this long (default 120)"),
        FlagSpec(
            "keep-taps-for", value: "SECONDS",
            help: "drop, and say so, a control tapped while the host is away after this long (default 60)"),
        FlagSpec("affinity", value: "KEY", help: "load balancer routing key (default: the group, else random)"),
        FlagSpec(
            "locked",
            help: "unattended: the keyboard never closes the kiosk (Ctrl-C twice does otherwise); stop it with SIGTERM"),
    ], environmentPrefix: "KIOSK", maxPositional: 1)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kiosk: \(message)\n".utf8))
    exit(2)
}

do {
    let flags = try parser.parse(
        Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    if flags.has("help") {
        print(parser.help(usage: "kiosk ws://HOST:PORT/ws [flags]"))
        exit(0)
    }
    guard let url = flags.positional.first else { fail("give the host's URL, for example ws://127.0.0.1:8080/ws") }
    let script = try flags.string("script").map(KioskScript.load)
    for (flag, value) in [("name", flags.string("name")), ("group", flags.string("group"))] {
        if let value, value.utf8.count > ClientDescription.maxNameBytes {
            fail("--\(flag) is longer than the host takes (\(ClientDescription.maxNameBytes) bytes)")
        }
    }
    // The address as the person is told it: no query (the routing key), never a token.
    let address = String(url.prefix { $0 != "?" })
    var typedTextLifetime = KioskModel.defaultTypedTextLifetime
    if let text = flags.string("forget-typed-after") {
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
            fail("--forget-typed-after takes a number of seconds, 0 or more (got \(text))")
        }
        typedTextLifetime = seconds
    }
    var keptTapLifetime = KioskModel.defaultKeptTapLifetime
    if let text = flags.string("keep-taps-for") {
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
            fail("--keep-taps-for takes a number of seconds, 0 or more (got \(text))")
        }
        keptTapLifetime = seconds
    }
    let app = KioskApp(
        name: flags.string("name") ?? ProcessInfo.processInfo.hostName, group: flags.string("group"),
        address: address, script: script, typedTextLifetime: typedTextLifetime,
        keptTapLifetime: keptTapLifetime, quitKey: flags.has("locked") ? .never : .twice)
    exit(
        try app.run(
            url: url, token: flags.string("token"), caFile: flags.string("ca-file"), affinity: flags.string("affinity"))
    )
} catch {
    fail("\(error)")
}
