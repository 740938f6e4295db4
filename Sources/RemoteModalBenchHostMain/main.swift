// bench-host: the host that `modal-bench roundtrip|storm|idle|resume` measures (see
// RoundTripFlow and docs/benchmarks.md). Not a demo: no web root, no controls.
//   bench-host PORT [libev|poll]   (the event loop; libev by default, as modal-host)
// Limits differ from modal-host's defaults, as a benchmark needs: the per-session rate
// limit is 1,000,000 messages a second (one session alone answers ~10,000 modals a second)
// and up to 19,000 connections and sessions, all from one address (this machine allows
// 20,000 descriptors a process; the client is one process on loopback).
import CRemoteModalMallocStats
import Dispatch
import Foundation
import RemoteModalDemo
import RemoteModalHost
import RemoteModalLogging
import RemoteModalWebSocket

LoggerSettings.shared.level = .warning
var server = WebSocketServerConfiguration()
server.port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 0 : 0
server.webRoot = nil
if CommandLine.arguments.count > 2, let loop = EventLoopBackend(rawValue: CommandLine.arguments[2]) {
    server.eventLoop = loop
}
server.maxConnections = 19_000
// Every benchmark client comes from 127.0.0.1.
server.maxConnectionsPerAddress = 19_000
server.socketChurnPerAddress = 0
var configuration = ModalHostConfiguration()
configuration.returnFreedMemory = { _ = rm_malloc_trim() }
configuration.messagesPerSecond = 1_000_000
configuration.messageBurst = 1_000_000
configuration.maxSessions = 19_000
configuration.maxSessionsPerAddress = 19_000
let host = ModalHost(configuration: configuration, transport: WebSocketTransport(configuration: server))
let flow = RoundTripFlow()
let running = flow.install(on: host)
serveUntilTerminated(host, flows: running, name: "bench-host")
