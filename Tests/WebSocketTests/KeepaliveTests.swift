import Foundation
import RemoteModalTransport
import Testing

@testable import RemoteModalWebSocket

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Keepalive schedule")
struct KeepaliveScheduleTests {
    /// Runs `schedule` tick by tick to `end`, with the connections' state in `states`, and
    /// returns what it did, by tick.
    func run(
        _ schedule: inout KeepaliveSchedule, to end: UInt32, states: inout [ConnectionID: KeepaliveSchedule.Liveness],
        heardAt: [UInt32: [ConnectionID]] = [:]
    ) -> [String] {
        var log: [String] = []
        while schedule.tick < end {
            let now = schedule.tick + 1
            for id in heardAt[now] ?? [] { states[id]?.heard = now }
            schedule.advance(
                to: now, liveness: { states[$0] },
                act: { id, action in
                    log.append("\(now):\(id.rawValue):\(action)")
                    if action == .ping { states[id]?.pinged = now } else { states[id] = nil }
                })
        }
        return log
    }

    @Test func aSilentConnectionIsPingedEveryIntervalThenDropped() {
        var schedule = KeepaliveSchedule(pingAfter: 20, closeAfter: 60)
        let id = ConnectionID(rawValue: 1)
        var states = [id: KeepaliveSchedule.Liveness(heard: 0, pinged: nil)]
        schedule.add(id)
        let log = run(&schedule, to: 100, states: &states)
        // Silence counts from the end of the tick heard in (0): a ping at 21 and 41, closed at 61.
        #expect(log == ["21:1:ping", "41:1:ping", "61:1:close"])
    }

    @Test func anyFrameHeardPutsThePingOff() {
        var schedule = KeepaliveSchedule(pingAfter: 20, closeAfter: 60)
        let id = ConnectionID(rawValue: 1)
        var states = [id: KeepaliveSchedule.Liveness(heard: 0, pinged: nil)]
        schedule.add(id)
        // Heard at 15 (a message) and at 41 (the pong to the ping at 36).
        let log = run(&schedule, to: 120, states: &states, heardAt: [15: [id], 41: [id]])
        #expect(log == ["36:1:ping", "62:1:ping", "82:1:ping", "102:1:close"])
    }

    @Test func aTickLooksOnlyAtTheConnectionsDueInIt() {
        var schedule = KeepaliveSchedule(pingAfter: 20, closeAfter: 60)
        var states: [ConnectionID: KeepaliveSchedule.Liveness] = [:]
        // 10,000 connections opened over 10 seconds, a thousand a second.
        for second in 0..<10 {
            for index in 0..<1_000 {
                let id = ConnectionID(rawValue: UInt64(second * 1_000 + index))
                states[id] = KeepaliveSchedule.Liveness(heard: UInt32(second), pinged: nil)
                schedule.add(id)
            }
            schedule.advance(to: UInt32(second + 1), liveness: { states[$0] }, act: { _, _ in })
        }
        var looked = 0
        schedule.advance(
            to: 21,
            liveness: {
                looked += 1; return states[$0]
            }, act: { _, _ in })
        // Ticks 11 to 21: only the thousand opened at second 0 are due (at 21).
        #expect(looked == 1_000)
    }

    @Test func aLimitSpreadsATicksConnectionsOverSeveralCalls() {
        var schedule = KeepaliveSchedule(pingAfter: 20, closeAfter: 60)
        var states: [ConnectionID: KeepaliveSchedule.Liveness] = [:]
        for index in 0..<1_000 {
            let id = ConnectionID(rawValue: UInt64(index))
            states[id] = KeepaliveSchedule.Liveness(heard: 0, pinged: nil)
            schedule.add(id)
        }
        var pinged: Set<ConnectionID> = []
        var calls = 0
        repeat {
            var looked = 0
            schedule.advance(
                to: 21, limit: 64,
                liveness: {
                    looked += 1; return states[$0]
                },
                act: { id, action in
                    #expect(action == .ping)
                    pinged.insert(id)
                    states[id]?.pinged = 21
                })
            #expect(looked <= 64)
            calls += 1
        } while schedule.hasDueConnections
        #expect(calls == 16)
        #expect(pinged.count == 1_000)
        // Each is looked at again 20 ticks later, once.
        var lookedAgain = 0
        schedule.advance(
            to: 41,
            liveness: {
                lookedAgain += 1; return states[$0]
            }, act: { _, _ in })
        #expect(lookedAgain == 1_000)
    }

    @Test func ticksMissedWhileTheLoopWasBusyAreAllProcessed() {
        var schedule = KeepaliveSchedule(pingAfter: 5, closeAfter: 10)
        let id = ConnectionID(rawValue: 7)
        var states = [id: KeepaliveSchedule.Liveness(heard: 0, pinged: nil)]
        schedule.add(id)
        var actions: [KeepaliveSchedule.Action] = []
        // One jump of 7 s: the ping due at 6 is sent once.
        schedule.advance(
            to: 7, liveness: { states[$0] },
            act: {
                actions.append($1); states[$0]?.pinged = 6
            })
        #expect(actions == [.ping])
        schedule.advance(
            to: 30, liveness: { states[$0] },
            act: {
                actions.append($1); if $1 == .close { states[$0] = nil }
            })
        #expect(actions == [.ping, .close])
    }

    @Test func aFrameHeardInTheTickBeingProcessedIsNoSilence() {
        var schedule = KeepaliveSchedule(pingAfter: 2, closeAfter: 6)
        let id = ConnectionID(rawValue: 4)
        var states = [id: KeepaliveSchedule.Liveness(heard: 0, pinged: nil)]
        schedule.add(id)
        // Heard at 3, the tick it is due in, and at 7 (ahead of the tick processed, as a
        // frame read after the clock moved on may be).
        var log: [KeepaliveSchedule.Action] = []
        states[id]?.heard = 3
        schedule.advance(to: 3, liveness: { states[$0] }, act: { log.append($1) })
        states[id]?.heard = 7
        schedule.advance(to: 6, liveness: { states[$0] }, act: { log.append($1) })
        #expect(log.isEmpty)
    }

    @Test func aConnectionThatHasGoneIsForgotten() {
        var schedule = KeepaliveSchedule(pingAfter: 2, closeAfter: 6)
        let id = ConnectionID(rawValue: 3)
        schedule.add(id)
        var asked = 0
        schedule.advance(
            to: 50,
            liveness: { _ in
                asked += 1; return nil
            }, act: { _, _ in Issue.record("acted") })
        #expect(asked == 1)
    }
}

/// A raw WebSocket client's view of the server's frames: pings seen, and whether (and when)
/// the server closed the socket.
struct RawFrameLog {
    var pings = 0
    var closedAfter: Double?
}

@Suite("Keepalive over a real socket")
struct KeepaliveSocketTests {
    /// Reads server frames from `socket` for up to `seconds`: counts pings, answers each with
    /// a pong when `answer` is set, sends a text frame every `chatter` seconds when given.
    func watch(_ socket: RawSocket, seconds: Double, answer: Bool, chatter: Double? = nil) -> RawFrameLog {
        var tv = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(socket.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var log = RawFrameLog()
        let start = Date()
        var lastChatter = start
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while Date().timeIntervalSince(start) < seconds {
            if let chatter, Date().timeIntervalSince(lastChatter) >= chatter {
                socket.sendMaskedText("still here")
                lastChatter = Date()
            }
            let count = recv(socket.fd, &buffer, buffer.count, 0)
            if count == 0 {
                log.closedAfter = Date().timeIntervalSince(start)
                return log
            }
            guard count > 0 else { continue }
            pending += buffer[0..<count]
            // Server frames are unmasked; these tests' frames are all short (length < 126).
            while pending.count >= 2, pending.count >= 2 + Int(pending[1] & 0x7f) {
                let length = Int(pending[1] & 0x7f)
                if pending[0] == 0x89 {
                    log.pings += 1
                    if answer {
                        socket.sendBytes([0x8a, 0x80 | UInt8(length), 0, 0, 0, 0] + pending[2..<(2 + length)])
                    }
                }
                pending.removeFirst(2 + length)
            }
        }
        return log
    }

    func upgraded(_ server: WebSocketServer) -> RawSocket {
        let socket = RawSocket(port: server.port)
        #expect(statusCode(socket.send(upgradeRequest(port: server.port))) == 101)
        return socket
    }

    func keepaliveServer(_ backend: EventLoopBackend) throws -> WebSocketServer {
        try makeEchoServer {
            $0.eventLoop = backend
            $0.pingIntervalSeconds = 1
            $0.missedPongsBeforeClose = 2
        }
    }

    @Test("a silent client is pinged, then dropped", arguments: EventLoopBackend.allCases)
    func aSilentClientIsPingedThenDropped(backend: EventLoopBackend) throws {
        let server = try keepaliveServer(backend)
        defer { server.stop() }
        let socket = upgraded(server)
        defer { socket.close() }
        // Counted in whole seconds, never early: a ping after 1-2 s of silence, another a
        // second later, the socket closed after 3-4 s.
        let log = watch(socket, seconds: 10, answer: false)
        #expect(log.pings == 2)
        #expect(log.closedAfter != nil)
        #expect(server.stats.silentConnectionsDropped == 1)
        #expect(server.stats.openConnections == 0)
    }

    @Test("a client that answers pings stays", arguments: EventLoopBackend.allCases)
    func aClientThatAnswersPingsStays(backend: EventLoopBackend) throws {
        let server = try keepaliveServer(backend)
        defer { server.stop() }
        let socket = upgraded(server)
        defer { socket.close() }
        let log = watch(socket, seconds: 5, answer: true)
        #expect(log.closedAfter == nil)
        #expect(log.pings >= 2)
        #expect(server.stats.silentConnectionsDropped == 0)
        #expect(server.stats.openConnections == 1)
    }

    @Test func aClientThatSendsMessagesIsNeverPinged() throws {
        let server = try keepaliveServer(.libev)
        defer { server.stop() }
        let socket = upgraded(server)
        defer { socket.close() }
        let log = watch(socket, seconds: 4.5, answer: false, chatter: 0.4)
        #expect(log.closedAfter == nil)
        #expect(log.pings == 0)
        #expect(server.stats.pingsSent == 0)
        #expect(server.stats.openConnections == 1)
    }
}
