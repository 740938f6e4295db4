// chaos-host: a host running only the chaos test's flow (see ChaosRecorder). For tests.
//   chaos-host PORT [--count-only] [--pickers N]   (every Nth question a photo picker)
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
// The chaos clients and their proxy all come from 127.0.0.1.
server.maxConnectionsPerAddress = server.maxConnections
// They reconnect in bursts on purpose: the churn budget would refuse them.
server.socketChurnPerAddress = 0
var configuration = ModalHostConfiguration()
configuration.returnFreedMemory = { _ = rm_malloc_trim() }
configuration.retentionSeconds = 120
// Every chaos client comes from 127.0.0.1: the per-address session cap would be what is tested.
configuration.maxSessionsPerAddress = 10_000
configuration.messagesPerSecond = 1_000
configuration.messageBurst = 2_000
let host = ModalHost(configuration: configuration, transport: WebSocketTransport(configuration: server))
let arguments = CommandLine.arguments
let pickerEvery = arguments.firstIndex(of: "--pickers").flatMap {
    $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil
}
let recorder = ChaosRecorder(keepAnswers: !arguments.contains("--count-only"), pickerEvery: pickerEvery)
let flows = recorder.install(on: host)
serveUntilTerminated(host, flows: flows, name: "chaos-host")
