import Foundation
import RemoteModalKiosk
import RemoteModalLocking
import RemoteModalProtocol
import Testing

/// A clock driven by hand: `advance` runs what fell due, in order.
final class FakeClock: KioskClock, Sendable {
    private struct Entry {
        var due: Double
        var order: Int
        var work: @Sendable () -> Void
    }

    private let state = Locked((now: 0.0, order: 0, entries: [Entry]()))

    var now: Double { state.withLock { $0.now } }

    /// Delays asked for, in order (the retry delays and welcome timeouts).
    let delays = Locked<[Double]>([])

    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        delays.withLock { $0.append(seconds) }
        state.withLock { state in
            state.order += 1
            state.entries.append(Entry(due: state.now + seconds, order: state.order, work: work))
        }
    }

    func advance(by seconds: Double) {
        let end = now + seconds
        while true {
            let next: Entry? = state.withLock { state in
                guard
                    let index = state.entries.indices.filter({ state.entries[$0].due <= end })
                        .min(by: {
                            (state.entries[$0].due, state.entries[$0].order) < (
                                state.entries[$1].due, state.entries[$1].order
                            )
                        })
                else { return nil }
                let entry = state.entries.remove(at: index)
                state.now = max(state.now, entry.due)
                return entry
            }
            guard let next else { break }
            next.work()
        }
        state.withLock { $0.now = end }
    }
}

/// A connector whose attempts the test opens, feeds and fails by hand.
final class FakeConnector: KioskConnector, Sendable {
    struct Attempt {
        var number: Int
        var events: @Sendable (Int, LinkEvent) -> Void
    }

    private let state = Locked((attempts: [Attempt](), sent: [(Int, String)](), closed: [Int]()))
    /// An event delivered from inside `open`, before it returns (a refusal on the loopback).
    let immediate = Locked<LinkEvent?>(nil)

    var attempts: [Attempt] { state.withLock { $0.attempts } }
    var sent: [(attempt: Int, text: String)] { state.withLock { $0.sent } }
    var closed: [Int] { state.withLock { $0.closed } }

    func open(_ url: String, attempt: Int, events: @escaping @Sendable (Int, LinkEvent) -> Void) throws {
        state.withLock { $0.attempts.append(Attempt(number: attempt, events: events)) }
        if let event = immediate.withLock({ $0 }) { events(attempt, event) }
    }

    func send(_ text: String, attempt: Int) { state.withLock { $0.sent.append((attempt, text)) } }
    func close(attempt: Int) { state.withLock { $0.closed.append(attempt) } }
    func stop() {}

    func deliver(_ event: LinkEvent) {
        let last = attempts.last!
        last.events(last.number, event)
    }

    func welcome(session: String, resumed: Bool) {
        deliver(.opened)
        deliver(.text(#"{"type":"welcome","session":"\#(session)","resumed":\#(resumed),"retentionSeconds":60}"#))
    }
}

@Suite("Kiosk reconnection (fake clock, fake connector)")
struct KioskConnectionTests {
    let hello = Hello(client: ClientDescription(kind: "kiosk", name: "k", group: nil), capabilities: ["alert"])

    func make(_ connector: FakeConnector, _ clock: FakeClock, states: Locked<[KioskModel.Connection]>)
        -> KioskConnection
    {
        KioskConnection(
            url: "ws://127.0.0.1:1/ws", hello: hello, connector: connector, clock: clock, random: { 0.99 },
            onMessage: { _ in }, onState: { state in states.withLock { $0.append(state) } })
    }

    static let failures: [LinkEvent] = [
        .failed("connection refused"), .failed("connection reset by peer"), .failed("tls: handshake failure"),
        .failed("HS: ws upgrade response not 101 (503)"), .closed(code: 1001, reason: "host shutting down"),
        .closed(code: 1013, reason: "try again later"), .closed(code: 1006, reason: ""),
    ]

    @Test(arguments: failures)
    func everyFailureIsRetriedForEverWithinTheCap(_ failure: LinkEvent) throws {
        let (connector, clock, states) = (FakeConnector(), FakeClock(), Locked<[KioskModel.Connection]>([]))
        let connection = make(connector, clock, states: states)
        try connection.start()
        connector.welcome(session: "s1", resumed: false)
        #expect(connection.isConnected)
        // The host stays away for 200 attempts (about ten minutes at the cap).
        for round in 0..<200 {
            let before = connector.attempts.count
            // A close ends an attempt that opened (and said hello); a failure one that never did.
            if case .closed = failure { connector.deliver(.opened) }
            connector.deliver(failure)
            #expect(!connection.isConnected)
            clock.advance(by: ReconnectPolicy().cap)
            #expect(connector.attempts.count == before + 1, "round \(round): no new attempt within the cap")
        }
        connector.welcome(session: "s1", resumed: true)
        #expect(connection.isConnected)
        #expect(states.withLock { $0.last } == .connected)
        // Every hello after the first asks to resume the session.
        let hellos = connector.sent.filter { $0.text.contains(#""type":"hello""#) }
        let opened = if case .closed = failure { 200 } else { 0 }
        #expect(hellos.count == 2 + opened)
        #expect(hellos.dropFirst().allSatisfy { $0.text.contains(#""resume":{"session":"s1"}"#) })
    }

    @Test func aRefusalReportedBeforeOpenReturnsStillRetries() throws {
        // The bug of issue 17: the refusal came back before the attempt's id was stored,
        // was taken for a stale attempt's, and the retry loop ended.
        let (connector, clock, states) = (FakeConnector(), FakeClock(), Locked<[KioskModel.Connection]>([]))
        let connection = make(connector, clock, states: states)
        try connection.start()
        connector.welcome(session: "s1", resumed: false)
        connector.immediate.withLock { $0 = .failed("connection refused") }
        connector.deliver(.closed(code: 1006, reason: ""))
        for _ in 0..<20 { clock.advance(by: 3) }
        // At least one attempt per cap's worth of time, none waiting longer than the cap.
        #expect(connector.attempts.count >= 21)
        #expect(clock.delays.withLock { $0 }.allSatisfy { $0 <= 3 || $0 == ReconnectPolicy().welcomeTimeout })
        connector.immediate.withLock { $0 = nil }
        clock.advance(by: 3)
        connector.welcome(session: "s1", resumed: true)
        #expect(connection.isConnected)
    }

    @Test func backoffGrowsWithJitterAndStopsAtTheCap() {
        let policy = ReconnectPolicy(base: 0.25, cap: 3)
        #expect(policy.delay(failures: 1, random: 0) == 0.125)
        #expect(policy.delay(failures: 1, random: 1) == 0.25)
        #expect(policy.delay(failures: 3, random: 1) == 1)
        #expect(policy.delay(failures: 10, random: 0) == 1.5)
        #expect(policy.delay(failures: 10_000, random: 1) == 3)
        let spread = Set((0..<10).map { policy.delay(failures: 5, random: Double($0) / 10) })
        #expect(spread.count == 10)
    }

    @Test func aHostThatOpensButNeverWelcomesIsLeftAndRetried() throws {
        let (connector, clock, states) = (FakeConnector(), FakeClock(), Locked<[KioskModel.Connection]>([]))
        let connection = make(connector, clock, states: states)
        try connection.start()
        connector.deliver(.opened)
        clock.advance(by: 9.9)
        #expect(connector.attempts.count == 1)
        clock.advance(by: 0.2)
        #expect(connector.closed == [1])
        clock.advance(by: 3)
        #expect(connector.attempts.count == 2)
        // Late events of the abandoned attempt change nothing.
        connector.attempts[0].events(1, .closed(code: 1006, reason: ""))
        connector.welcome(session: "s", resumed: false)
        #expect(connection.isConnected)
    }

    @Test func silenceAfterAnAnswerGivesTheConnectionUpAndTheAnswerGoesAgain() throws {
        let (connector, clock, states) = (FakeConnector(), FakeClock(), Locked<[KioskModel.Connection]>([]))
        let connection = make(connector, clock, states: states)
        try connection.start()
        connector.welcome(session: "s1", resumed: false)
        // A reply in time keeps the connection.
        connection.send(.result(id: "m1", value: ["action": 0]))
        clock.advance(by: 5)
        connector.deliver(.text(#"{"type":"dismiss","seq":1,"id":"m1","reason":"resolved"}"#))
        clock.advance(by: 10)
        #expect(connector.closed.isEmpty)
        #expect(connection.isConnected)
        // Then the network stalls: the next answer meets silence.
        connection.send(.result(id: "m2", value: ["action": 1]))
        clock.advance(by: 9.9)
        #expect(connection.isConnected, "not before the reply timeout")
        clock.advance(by: 0.2)
        #expect(connector.closed == [1])
        #expect(!connection.isConnected)
        #expect(states.withLock { $0.last } == .reconnecting)
        clock.advance(by: ReconnectPolicy().cap)
        connector.welcome(session: "s1", resumed: true)
        let resent = connector.sent.filter { $0.attempt == 2 && $0.text.contains(#""type":"result""#) }
        #expect(resent.count == 1 && resent[0].text.contains(#""id":"m2""#))
        // Chunks of an upload are watched the same way.
        connector.deliver(.text(#"{"type":"dismiss","seq":5,"id":"m2","reason":"resolved"}"#))
        connection.send(
            .upload(
                UploadChunk(
                    id: "m3", file: 0, name: "a.png", mimeType: "image/png", size: 10, offset: 0, data: "AAAA",
                    last: false)))
        clock.advance(by: 10.1)
        #expect(connector.closed == [1, 2])
    }

    @Test func unauthorizedIsShownAndRetriedSlowly() throws {
        let (connector, clock, states) = (FakeConnector(), FakeClock(), Locked<[KioskModel.Connection]>([]))
        let connection = make(connector, clock, states: states)
        try connection.start()
        connector.deliver(.opened)
        connector.deliver(.closed(code: 1008, reason: "unauthorized"))
        #expect(states.withLock { $0 } == [.unauthorized])
        clock.advance(by: 2.9)
        #expect(connector.attempts.count == 1)
        clock.advance(by: 0.1)
        #expect(connector.attempts.count == 2)
        _ = connection
    }

    @Test func answersWaitForAWelcomeAndAreResentAfterAResume() throws {
        let (connector, clock, states) = (FakeConnector(), FakeClock(), Locked<[KioskModel.Connection]>([]))
        let connection = make(connector, clock, states: states)
        try connection.start()
        connector.welcome(session: "s1", resumed: false)
        connector.deliver(.closed(code: 1006, reason: ""))
        connection.send(.result(id: "m1", value: ["action": 0]))
        #expect(!connector.sent.contains { $0.text.contains(#""type":"result""#) })
        clock.advance(by: 3)
        connector.welcome(session: "s1", resumed: true)
        #expect(connector.sent.last?.text.contains(#""type":"result""#) == true)
        #expect(connector.sent.last?.attempt == 2)
    }
}
