import Foundation
import RemoteModalWebSocket
import Testing

@Suite("Echo over real sockets", .serialized)
struct EchoTests {
    @Test("text messages of every boundary size come back intact", arguments: [0, 1, 125, 126, 65_535, 65_536])
    func echoSizes(size: Int) throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let id = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(id) })
        let text = String(repeating: "a", count: size)
        #expect(client.send(text: text, to: id))
        #expect(recorder.wait { !recorder.messages(id).isEmpty })
        #expect(recorder.messages(id) == [.text(text)])
    }

    @Test func multiByteUTF8AndBinaryKeepTheirOpcode() throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let id = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(id) })
        client.send(text: "héllo, 世界 🎉", to: id)
        client.send(.binary(Data([0, 1, 2, 255])), to: id)
        #expect(recorder.wait { recorder.messages(id).count == 2 })
        #expect(recorder.messages(id) == [.text("héllo, 世界 🎉"), .binary(Data([0, 1, 2, 255]))])
    }

    @Test func oversizedMessageClosesWith1009AndOthersContinue() throws {
        let server = try makeEchoServer { $0.maxMessageBytes = 1_000 }
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let big = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        let small = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(big) && recorder.isOpen(small) })
        client.send(text: String(repeating: "x", count: 1_000), to: big)
        #expect(recorder.wait { recorder.messages(big).count == 1 })
        client.send(text: String(repeating: "x", count: 1_001), to: big)
        #expect(recorder.wait { recorder.closeCode(big) != nil })
        #expect(recorder.closeCode(big) == .messageTooBig)
        client.send(text: "still here", to: small)
        #expect(recorder.wait { recorder.messages(small) == [.text("still here")] })
        #expect(server.stats.oversizedMessages == 1)
    }

    @Test func stopClosesConnectionsWith1001() throws {
        let server = try makeEchoServer()
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let id = try client.connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(id) })
        server.stop()
        #expect(recorder.wait { recorder.closeCode(id) != nil })
        #expect(recorder.closeCode(id) == .goingAway)
    }
}
