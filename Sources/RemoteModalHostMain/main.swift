// modal-host: parses flags and wires the libraries together; no logic lives here.
import CRemoteModalMallocStats
import Dispatch
import Foundation
import RemoteModalDemo
import RemoteModalHost
import RemoteModalLogging
import RemoteModalWebSocket

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("modal-host: \(message)\n".utf8))
    exit(2)
}

let options: HostOptions
do {
    guard
        var parsed = try HostOptions.parse(
            Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    else {
        print(HostOptions.parser.help(usage: "modal-host [flags]"))
        exit(0)
    }
    // The echo server (conformance suites, benchmarks) needs no page.
    if parsed.echo && parsed.webRootChoice == .searched { parsed.webRootChoice = .none }
    try parsed.resolveWebRoot()
    options = parsed
} catch {
    fail("\(error)")
}
LoggerSettings.shared.level = options.logLevel
let logger = Logger(label: "modal-host")

let stop: @Sendable () -> Void
do {
    if options.echo {
        let server = try WebSocketServer.echo(configuration: options.server, logger: logger)
        stop = { server.stop() }
    } else {
        var hostConfiguration = options.host
        hostConfiguration.publicBaseURL = options.publicBaseURL
        hostConfiguration.returnFreedMemory = { _ = rm_malloc_trim() }
        let transport = WebSocketTransport(configuration: options.server, logger: Logger(label: "transport"))
        let host = ModalHost(configuration: hostConfiguration, transport: transport, logger: Logger(label: "host"))
        let login = options.oidcIssuer.flatMap(URL.init(string:)).map {
            OpenIDLogin(issuer: $0, clientID: options.oidcClientID ?? "")
        }
        let flows = DemoFlows.install(
            on: host, login: login, photoMaxBytes: options.photoMaxBytes, options: options.demoOptions,
            draftLifetime: options.draftLifetime)
        try host.start()
        if let root = options.server.webRoot { logger.info("serving the page from \(root)") }
        // With --port 0 the system picked the port: say the one clients can reach.
        var shown = options
        if shown.server.port == 0 { shown.server.port = transport.port }
        logger.info("demo host ready: open \(shown.publicBaseURL)/ in a browser")
        stop = {
            flows.dispose()
            host.shutdown()
        }
    }
} catch let error as WebSocketError {
    // The library's words, and what to change on this command line.
    if case .cannotListen = error {
        fail(
            "cannot start: \(error); another modal-host or `make demo`? choose a port with --port, an address with --host"
        )
    }
    fail("cannot start: \(error)")
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
        stop()
        exit(0)
    }
    source.resume()
}
dispatchMain()
