import Foundation
import RemoteModalLogging
import Testing

@testable import RemoteModalWebSocket

@Suite("Event loop backends", .serialized)
struct EventLoopTests {
    @Test(
        "echo, a close queued after a burst, and the 1001 at stop, on each server backend",
        arguments: EventLoopBackend.allCases)
    func serverBackend(_ backend: EventLoopBackend) throws {
        let server = try makeEchoServer { $0.eventLoop = backend }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let id = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(id) })
        let burst = (0..<50).map { "message \($0)" }
        for text in burst { client.send(text: text, to: id) }
        #expect(recorder.wait { recorder.messages(id).count == burst.count })
        #expect(recorder.messages(id) == burst.map { .text($0) })
        server.stop()
        #expect(recorder.wait { recorder.closeCode(id) != nil })
        #expect(recorder.closeCode(id) == .goingAway)
    }

    @Test("each client backend talks to a libev server", arguments: EventLoopBackend.allCases)
    func clientBackend(_ backend: EventLoopBackend) throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try WebSocketClient(
            eventLoop: backend, logger: Logger(label: "test-client", settings: quietLogs),
            onOpen: { recorder.record($0, .open) }, onMessage: { recorder.record($0, .message($1)) },
            onClose: { recorder.record($0, .closed($1, $2)) }, onFailure: { recorder.record($0, .failed($1)) })
        defer { client.stop() }
        let ids = try (0..<20).map { _ in try client.connect("ws://127.0.0.1:\(server.port)/ws") }
        #expect(recorder.wait { ids.allSatisfy(recorder.isOpen) })
        for id in ids { client.send(text: "hello \(id.rawValue)", to: id) }
        #expect(recorder.wait { ids.allSatisfy { !recorder.messages($0).isEmpty } })
        #expect(ids.allSatisfy { recorder.messages($0) == [.text("hello \($0.rawValue)")] })
    }

    @Test func aMissingPluginIsAnErrorThatSaysWhatToInstallAndTheWayAround() throws {
        #expect(throws: Never.self) { try EventLoopBackend.poll.checkAvailable(fileExists: { _ in false }) }
        do {
            try EventLoopBackend.libev.checkAvailable(fileExists: { _ in false })
            Issue.record("no error for a missing plugin")
        } catch let error as WebSocketError {
            guard case .eventLibraryMissing(_, let plugin, let package) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(plugin.hasSuffix("/libwebsockets-evlib_ev.so"))
            #expect(package == "libwebsockets-evlib-ev")
            #expect(error.description.contains("apt-get install libwebsockets-evlib-ev"))
            #expect(error.description.contains("--event-loop poll"))
        }
        // Installed here (scripts/bootstrap installs it): the default backend starts.
        #expect(throws: Never.self) { try EventLoopBackend.libev.checkAvailable() }
    }
}
