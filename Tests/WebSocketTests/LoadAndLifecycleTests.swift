import Foundation
import RemoteModalLocking
import Synchronization
import Testing

@testable import RemoteModalWebSocket

/// Open file descriptors of this process.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

@Suite("Load, slow readers and lifecycle", .serialized)
struct LoadAndLifecycleTests {
    @Test func fiveHundredConnectionsExchangeAHundredMessagesEachInOrder() throws {
        // All 500 come from 127.0.0.1: the per-address limit (64) is not what this measures.
        let server = try makeEchoServer { $0.maxConnectionsPerAddress = 500 }
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let ids = try (0..<500).map { _ in try client.connect("ws://127.0.0.1:\(server.port)/ws") }
        #expect(recorder.wait(seconds: 30) { ids.allSatisfy { recorder.isOpen($0) } })
        for round in 0..<100 {
            for (index, id) in ids.enumerated() { client.send(text: "\(index):\(round)", to: id) }
        }
        #expect(recorder.wait(seconds: 60) { ids.allSatisfy { recorder.messages($0).count >= 100 } })
        for (index, id) in ids.enumerated() {
            let expected = (0..<100).map { WebSocketMessage.text("\(index):\($0)") }
            #expect(recorder.messages(id) == expected)
        }
    }

    @Test func slowReaderIsClosedWithoutStallingAFastOne() throws {
        // The server pushes to a client that never reads; its queue must overflow and
        // close it with 1008 while another client keeps getting answers promptly.
        let flooder = Locked<ConnectionID?>(nil)
        let box = ServerBox()
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configuration.outgoingQueueLimitBytes = 256 * 1024
        configuration.libraryLogLevel = .error
        let server = try WebSocketServer(
            configuration: configuration, logger: .init(label: "t", settings: quietLogs),
            onMessage: { id, message in
                if message == .text("flood me") {
                    flooder.withLock { $0 = id }
                } else {
                    box.server?.send(message, to: id)
                }
            })
        box.server = server
        defer { server.stop() }
        let slowPort = server.port
        // A raw socket that upgrades and then never reads a byte.
        let slow = RawSocket(port: slowPort)
        #expect(statusCode(slow.send(upgradeRequest(port: slowPort))) == 101)
        slow.sendMaskedText("flood me")
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let fast = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(fast) && flooder.withLock({ $0 }) != nil })
        let target = flooder.withLock { $0 }!
        let chunk = String(repeating: "z", count: 32 * 1024)
        var accepted = 0
        for _ in 0..<2_000 where server.send(text: chunk, to: target) { accepted += 1 }
        #expect(accepted < 2_000)
        client.send(text: "ping", to: fast)
        #expect(recorder.wait(seconds: 5) { recorder.messages(fast) == [.text("ping")] })
        #expect(recorder.wait(seconds: 10) { server.stats.openConnections == 1 })
        #expect(server.stats.slowConsumers == 1)
        slow.close()
    }

    @Test func startAndStopAHundredTimesLeaksNoThreadOrDescriptor() throws {
        // Warm up once so lazily created process-wide resources are not counted.
        try makeEchoServer().stop()
        let before = openDescriptorCount()
        var serviceThreads: [Int32] = []
        for _ in 0..<100 {
            let server = try makeEchoServer()
            let reply = get(server.port, "/healthz")
            #expect(statusCode(reply) == 200)
            serviceThreads.append(server.serviceThreadKernelID)
            server.stop()
        }
        #expect(serviceThreads.allSatisfy { $0 > 0 })
        // Other suites run beside this one and start threads of their own, so the threads
        // checked are this loop's service threads, by kernel id: each must be gone. Threads
        // that ended are reaped asynchronously; give them a moment.
        func alive() -> [Int32] {
            serviceThreads.filter { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") }
        }
        var after = openDescriptorCount()
        for _ in 0..<50 where !alive().isEmpty || after > before {
            Thread.sleep(forTimeInterval: 0.05)
            after = openDescriptorCount()
        }
        #expect(after <= before)
        #expect(alive().isEmpty)
    }
}
