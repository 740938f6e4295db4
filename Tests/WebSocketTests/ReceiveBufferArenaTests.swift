import Foundation
import Glibc
import RemoteModalLocking
import RemoteModalLogging
import Testing

@testable import RemoteModalWebSocket

/// lws's receive buffers come from the arena's slots, which cost memory only for what lws
/// writes into them: an open connection's buffer, even one that received large data frames,
/// holds at most one resident page, and a slot given back holds none.
@Suite("Receive buffers from reserved address space")
struct ReceiveBufferArenaTests {
    /// Resident pages of `bytes` bytes at `start` (`mincore`).
    static func residentPages(_ start: UnsafeMutableRawPointer, _ bytes: Int) -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: (bytes + page - 1) / page)
        guard mincore(start, bytes, &vector) == 0 else { return -1 }
        return vector.reduce(0) { $0 + Int($1 & 1) }
    }

    @Test func aSlotCostsOnlyThePagesWrittenAndNoneOnceGivenBack() throws {
        let arena = ReceiveBufferArena(slotCount: 3)
        let first = try #require(arena.take())
        #expect(arena.owns(first))
        #expect(Self.residentPages(first, arena.slotBytes) == 0)
        first.storeBytes(of: 0x41, toByteOffset: 20, as: UInt8.self)
        #expect(Self.residentPages(first, arena.slotBytes) == 1)
        let second = try #require(arena.take())
        let third = try #require(arena.take())
        #expect(arena.take() == nil, "three slots, three taken")
        #expect(Set([first, second, third].map { UInt(bitPattern: $0) }).count == 3)
        #expect(arena.slotsInUse == 3)
        arena.release(first)
        #expect(Self.residentPages(first, arena.slotBytes) == 0)
        let again = try #require(arena.take())
        #expect(again == first, "the slot given back last is reused first")
        #expect(again.load(fromByteOffset: 20, as: UInt8.self) == 0)
        #expect(!arena.owns(UnsafeMutableRawPointer(bitPattern: 0x1000)!))
    }

    /// A masked text frame of `count` bytes of "a" (a 64-bit length past 65,535).
    static func maskedFrame(count: Int) -> [UInt8] {
        let mask: [UInt8] = [9, 8, 7, 6]
        var frame: [UInt8] = [0x81, 0x80 | 126] + [UInt8(count >> 8), UInt8(count & 0xFF)] + mask
        frame += (0..<count).map { 0x61 ^ mask[$0 % 4] }
        return frame
    }

    @Test func serverConnectionsReceiveIntoSlotsThatDataFramesLeaveUntouched() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configuration.libraryLogLevel = .error
        configuration.receiveBufferBytes = 65_536
        let received = Locked(0)
        let server = try WebSocketServer(
            configuration: configuration, logger: Logger(label: "arena-test", settings: quietLogs),
            onMessage: { _, _ in received.withLock { $0 += 1 } })
        defer { server.stop() }
        let arena = ReceiveBufferArena.shared
        let sockets = (0..<4).map { _ in RawSocket(port: server.port) }
        defer { sockets.forEach { $0.close() } }
        for socket in sockets {
            let reply = socket.send(
                "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Protocol: remote-modal.v1\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 101"))
            // Data frames of 60,000 bytes, more than 14 pages each: lws hands their payload
            // over from its own per-thread buffer, never through the connection's.
            for _ in 0..<3 { socket.sendBytes(Self.maskedFrame(count: 60_000)) }
        }
        let deadline = Date().addingTimeInterval(20)
        while received.withLock({ $0 }) < 12, Date() < deadline { usleep(10_000) }
        #expect(received.withLock { $0 } == 12)
        // Other suites' connections may hold slots too; ours are four of them.
        #expect(arena.slotsInUse >= 4)
        // No slot holds more than one resident page (a control frame's payload at most).
        let base = try #require(UnsafeMutableRawPointer(bitPattern: arena.base))
        for slot in 0..<arena.slotCount {
            let pages = Self.residentPages(base + slot * arena.slotBytes, arena.slotBytes)
            if pages > 1 { Issue.record("slot \(slot) holds \(pages) resident pages") }
        }
    }
}
