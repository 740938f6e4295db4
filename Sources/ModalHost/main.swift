// modal-host: parses flags and wires the libraries together; no logic lives here.
import Dispatch
import Flags
import Foundation
import Logging
import WebSocket

let parser = FlagParser(
    [
        FlagSpec("host", value: "ADDRESS", help: "address to bind (default 127.0.0.1)"),
        FlagSpec("port", value: "N", help: "TCP port (default 8080; 0 picks a free one)"),
        FlagSpec("web-root", value: "PATH", help: "folder served at / (default ./web)"),
        FlagSpec("tls-cert", value: "PATH", help: "PEM certificate for https/wss"),
        FlagSpec("tls-key", value: "PATH", help: "PEM private key for https/wss"),
        FlagSpec("max-message-bytes", value: "N", help: "largest accepted message (default 65536)"),
        FlagSpec("allowed-origin", value: "ORIGIN", help: "extra origin allowed to connect", repeatable: true),
        FlagSpec("log-level", value: "LEVEL", help: "trace, debug, info, warning or error (default info)"),
        FlagSpec("echo", help: "echo every message back (conformance and benchmarks)"),
    ], environmentPrefix: "MODAL_HOST")

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("modal-host: \(message)\n".utf8))
    exit(2)
}

let flags: ParsedFlags
var configuration = WebSocketServerConfiguration()
do {
    flags = try parser.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    if flags.has("help") {
        print(parser.help(usage: "modal-host [flags]"))
        exit(0)
    }
    configuration.host = flags.string("host") ?? configuration.host
    configuration.port = try flags.int("port", in: 0...65_535) ?? configuration.port
    configuration.webRoot = flags.string("web-root") ?? "web"
    configuration.maxMessageBytes = try flags.int("max-message-bytes", in: 128...(64 << 20)) ?? 65_536
    configuration.allowedOrigins = flags.strings("allowed-origin")
    switch (flags.string("tls-cert"), flags.string("tls-key")) {
    case (let cert?, let key?): configuration.tls = TLSConfiguration(certificatePath: cert, privateKeyPath: key)
    case (nil, nil): break
    default: fail("--tls-cert and --tls-key go together")
    }
    if let name = flags.string("log-level") {
        guard let level = LogLevel(name: name) else { fail("unknown log level '\(name)'") }
        LoggerSettings.shared.level = level
    }
} catch {
    fail("\(error)")
}

let logger = Logger(label: "modal-host")
let server: WebSocketServer
do {
    server = try WebSocketServer.echo(configuration: configuration, logger: logger)
} catch {
    fail("cannot start: \(error)")
}

// Graceful stop on SIGINT and SIGTERM.
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let signals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
for source in signals {
    source.setEventHandler {
        logger.info("stopping")
        server.stop()
        exit(0)
    }
    source.resume()
}
dispatchMain()
