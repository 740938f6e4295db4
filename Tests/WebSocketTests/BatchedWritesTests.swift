import Foundation
import RemoteModalLogging
import Testing

@testable import RemoteModalWebSocket

/// Frames a handler sends in one turn leave in one write: what arrives must still be the
/// same messages, whole, in order, with their opcodes, and a close after them.
@Suite("Frames of a turn written together", .serialized)
struct BatchedWritesTests {
    /// What the server sends, all from one handler call (one turn of the loop).
    static let burst: [WebSocketMessage] =
        (0..<6).map { .text("small \($0) \"quoted\"") } + [
            .binary(Data([0, 1, 2, 0x81, 0xFF])),
            .text(String(repeating: "é", count: 200)),  // 400 bytes: a 16-bit length
            .text(String(repeating: "x", count: 70_000)),  // a 64-bit length, over the batch size
            .text(""),
            .text("last"),
        ]

    private func makeBurstServer(closeAfter: Bool) throws -> WebSocketServer {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configuration.libraryLogLevel = .error
        let box = ServerBox()
        let server = try WebSocketServer(
            configuration: configuration, logger: Logger(label: "test-server", settings: quietLogs),
            onMessage: { id, _ in
                for message in Self.burst { box.server?.send(message, to: id) }
                if closeAfter { box.server?.close(id, code: .normal, reason: "done") }
            })
        box.server = server
        return server
    }

    @Test func aBurstArrivesWholeAndInOrderInFewerWrites() throws {
        let server = try makeBurstServer(closeAfter: false)
        defer { server.stop() }
        let (recorder, client, id) = try connectedClient(to: server)
        defer { client.stop() }
        client.send(text: "go", to: id)
        #expect(recorder.wait { recorder.messages(id).count == Self.burst.count })
        #expect(recorder.messages(id) == Self.burst)
        let stats = server.stats
        #expect(stats.messagesSent == Self.burst.count)
        // Eight frames fit the 4 KiB batch, the 70 KB one goes alone, then the last two.
        #expect(stats.writes == 3)
        // The connection still works after the burst.
        client.send(text: "again", to: id)
        #expect(recorder.wait { recorder.messages(id).count == 2 * Self.burst.count })
        #expect(Array(recorder.messages(id).suffix(Self.burst.count)) == Self.burst)
    }

    @Test func aCloseQueuedAfterTheBurstComesAfterEveryFrame() throws {
        let server = try makeBurstServer(closeAfter: true)
        defer { server.stop() }
        let (recorder, client, id) = try connectedClient(to: server)
        defer { client.stop() }
        client.send(text: "go", to: id)
        #expect(recorder.wait { recorder.closeCode(id) != nil })
        #expect(recorder.messages(id) == Self.burst)
        #expect(recorder.closeCode(id) == .normal)
    }

    @Test func aSlowReaderGetsEveryByteOfABatchLwsHadToKeep() throws {
        // A raw client with a 4 KiB receive buffer that reads late: the 70 KB frame and
        // the ones after it cannot all go in one send; lws keeps the rest and sends it
        // before anything else.
        let server = try makeBurstServer(closeAfter: false)
        defer { server.stop() }
        let socket = RawSocket(port: server.port)
        defer { socket.close() }
        let reply = socket.send(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Protocol: remote-modal.v1\r\n\r\n")
        #expect(reply.hasPrefix("HTTP/1.1 101"))
        socket.sendMaskedText("go")
        Thread.sleep(forTimeInterval: 0.3)
        var reader = FrameReader(socket: socket)
        var received: [WebSocketMessage] = []
        while received.count < Self.burst.count, let frame = reader.next() {
            received.append(frame)
        }
        #expect(received == Self.burst)
    }

    @Test("frame headers at the length boundaries", arguments: [0, 125, 126, 65_535, 65_536])
    func headerAtBoundary(length: Int) {
        let payload = [UInt8](repeating: 0x61, count: length)
        let size = WebSocketFrame.headerSize(payload: length) + length
        var frame = [UInt8](repeating: 0, count: size)
        let end = frame.withUnsafeMutableBytes { destination in
            payload.withUnsafeBytes {
                WebSocketFrame.write(opcode: .text, payload: $0, at: destination.baseAddress!)
                    - destination.baseAddress!
            }
        }
        #expect(end == size)
        #expect(frame[0] == 0x81)
        switch length {
        case ..<126:
            #expect(frame[1] == UInt8(length))
        case ...0xFFFF:
            #expect(frame[1] == 126)
            #expect(Int(frame[2]) << 8 | Int(frame[3]) == length)
        default:
            #expect(frame[1] == 127)
            #expect(frame[2..<10].reduce(0) { $0 << 8 | Int($1) } == length)
        }
        #expect(Array(frame[(size - length)...]) == payload)
    }
}

/// Reads unmasked server frames from a raw socket (the test's own small parser).
struct FrameReader {
    let socket: RawSocket
    private var buffer: [UInt8] = []

    init(socket: RawSocket) { self.socket = socket }

    private mutating func fill(_ count: Int) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while buffer.count < count {
            let got = recv(socket.fd, &chunk, chunk.count, 0)
            guard got > 0 else { return false }
            buffer += chunk[0..<got]
        }
        return true
    }

    mutating func next() -> WebSocketMessage? {
        guard fill(2) else { return nil }
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard fill(4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            header = 4
        } else if length == 127 {
            guard fill(10) else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        guard fill(header + length) else { return nil }
        let payload = Array(buffer[header..<(header + length)])
        buffer.removeFirst(header + length)
        return opcode == 2 ? .binary(Data(payload)) : .text(String(decoding: payload, as: UTF8.self))
    }
}
