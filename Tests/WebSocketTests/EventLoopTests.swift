import Foundation
import RemoteModalLogging
import Testing

@testable import RemoteModalWebSocket

#if canImport(Glibc)
    import Glibc
#endif

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

/// The order of a pong and an answer: a server that writes an answer the moment its message
/// is read (on libev, `WRITEABLE` fed in the same turn) must still send the pong it owes for
/// a ping read before the message first (Autobahn 5.6 checks it on a fragmented message).
@Suite("A pong before the answer that follows its ping", .serialized)
struct PongOrderTests {
    /// A masked client frame (payload under 126 bytes).
    func frame(_ opcode: UInt8, fin: Bool, _ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        let mask: [UInt8] = [9, 8, 7, 6]
        return [(fin ? 0x80 : 0) | opcode, 0x80 | UInt8(payload.count)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// The server's next `count` frames (unmasked, short) as (opcode, text).
    func read(_ socket: RawSocket, frames count: Int) -> [(UInt8, String)] {
        var frames: [(UInt8, String)] = []
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while frames.count < count {
            let got = recv(socket.fd, &buffer, buffer.count, 0)
            guard got > 0 else { break }
            pending += buffer[0..<got]
            while pending.count >= 2, pending.count >= 2 + Int(pending[1] & 0x7f) {
                let length = Int(pending[1] & 0x7f)
                frames.append((pending[0] & 0x0f, String(decoding: pending[2..<(2 + length)], as: UTF8.self)))
                pending.removeFirst(2 + length)
            }
        }
        return frames
    }

    /// Sends `bytes` in one write, 20 times on new connections, and expects the pong of
    /// payload `ping` before the echo of `message`.
    func expectPongFirst(_ backend: EventLoopBackend, _ bytes: [UInt8], ping: String, message: String) throws {
        let server = try makeEchoServer { $0.eventLoop = backend }
        defer { server.stop() }
        for _ in 0..<20 {
            let socket = RawSocket(port: server.port)
            defer { socket.close() }
            #expect(statusCode(socket.send(upgradeRequest(port: server.port))) == 101)
            socket.sendBytes(bytes)
            let frames = read(socket, frames: 2)
            #expect(frames.map(\.0) == [0xa, 0x1], "the pong first, then the echo")
            #expect(frames.map(\.1) == [ping, message])
        }
    }

    @Test("a ping between two fragments, all in one write", arguments: EventLoopBackend.allCases)
    func pingInsideAFragmentedMessage(_ backend: EventLoopBackend) throws {
        try expectPongFirst(
            backend, frame(0x1, fin: false, "hel") + frame(0x9, fin: true, "p") + frame(0x0, fin: true, "lo"),
            ping: "p", message: "hello")
    }

    @Test("a ping, then a whole message, in one write", arguments: EventLoopBackend.allCases)
    func pingBeforeAMessage(_ backend: EventLoopBackend) throws {
        try expectPongFirst(
            backend, frame(0x9, fin: true, "q") + frame(0x1, fin: true, "answer me"), ping: "q", message: "answer me")
    }
}
