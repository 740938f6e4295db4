import RemoteModalClient
import RemoteModalProtocol
import Testing

/// What each way of being refused does: backoff with jitter, 1001, 1013, 503, TLS, HTTP 4xx,
/// 1008 `unauthorized`, a refused hello; and the watchdogs.
@Suite("Client machine: reconnect policy and watchdogs")
struct PolicyEdgeTests {
    func delays(_ harness: MachineHarness) -> [Double] {
        harness.connections.compactMap { if case .reconnecting(_, let delay, _) = $0 { delay } else { nil } }
    }

    @Test func refusedAndResetAttemptsBackOffExponentiallyUpToTheCap() {
        var harness = MachineHarness(jitter: 1)
        for _ in 0..<6 {
            harness.handle(.linkFailed(attempt: harness.attempt, harness.attempt % 2 == 0 ? .reset : .refused))
            harness.advance(10)
        }
        #expect(delays(harness) == [0.5, 1, 2, 4, 6, 6])
        #expect(harness.opened == Array(1...7))
    }

    @Test func jitterIsInjectedAndScalesTheDelay() {
        var harness = MachineHarness(jitter: 0.25)
        harness.handle(.linkFailed(attempt: 1, .refused))
        harness.advance(10)
        harness.handle(.linkFailed(attempt: 2, .refused))
        #expect(delays(harness) == [0.125, 0.25])
    }

    @Test func afterA1001AttemptsComeAtMostTwoSecondsApartUntilTheHostIsBack() {
        var harness = MachineHarness(jitter: 1)
        harness.welcome()
        harness.handle(.linkClosed(attempt: 1, code: 1001, reason: "host shutting down"))
        for _ in 0..<5 {
            harness.advance(2)
            harness.handle(.linkFailed(attempt: harness.attempt, .refused))
        }
        #expect(delays(harness).allSatisfy { $0 <= 2 })
        #expect(harness.connections.contains(.reconnecting(attempt: 2, retryIn: 0.5, why: .hostLeft)))
        harness.advance(2)
        harness.welcome("s2")
        harness.handle(.linkFailed(attempt: harness.attempt, .refused))
        harness.handle(.linkClosed(attempt: harness.attempt, code: 1006, reason: ""))
        #expect(delays(harness).last == 0.5, "back to the ordinary backoff, from the start")
    }

    @Test func a1013OrA503WaitsAtLeastTheFloorAndSaysWhy() {
        var harness = MachineHarness(jitter: 0)
        harness.handle(.linkOpened(attempt: 1))
        harness.handle(.linkClosed(attempt: 1, code: 1013, reason: "host at session capacity"))
        harness.advance(1)
        harness.handle(.linkFailed(attempt: 2, .http(503)))
        harness.advance(1)
        harness.handle(.linkFailed(attempt: 3, .upgradeRefused("HS: ws upgrade response not 101")))
        #expect(delays(harness) == [1, 1, 1])
        #expect(
            harness.connections.contains(
                .reconnecting(attempt: 2, retryIn: 1, why: .busy(reason: "host at session capacity"))))
    }

    @Test func aTLSFailureRetriesAtTheSlowestPace() {
        var harness = MachineHarness(jitter: 0)
        harness.handle(.linkFailed(attempt: 1, .tls("certificate verify failed")))
        #expect(delays(harness) == [6])
    }

    @Test func anHTTP403StopsUntilRetryNow() {
        var harness = MachineHarness()
        harness.handle(.linkFailed(attempt: 1, .http(403)))
        #expect(harness.connections.last == .stopped(.failed(.http(403))))
        harness.advance(600)
        #expect(harness.opened == [1])
        harness.handle(.retryNow)
        #expect(harness.opened == [1, 2])
    }

    @Test func aRefusedHelloStopsRetrying() {
        var harness = MachineHarness()
        harness.handle(.linkOpened(attempt: 1))
        let refusal = ProtocolError(.badMessage, "field 'client.group' is too long (at most 256 bytes)", ref: "hello")
        harness.host(.error(seq: nil, refusal))
        #expect(harness.closed == [1])
        #expect(harness.connections.last == .stopped(.helloRefused(refusal)))
        harness.advance(600)
        #expect(harness.opened == [1], "the same hello would be refused the same way")
    }

    @Test func anUnauthorizedHelloStopsWithTheHostsWords() {
        var harness = MachineHarness()
        harness.handle(.linkOpened(attempt: 1))
        let refusal = ProtocolError(.unauthorized, "this token does not grant the group 'lobby'", ref: "hello")
        harness.host(.error(seq: nil, refusal))
        #expect(harness.closed.isEmpty, "waits for the host's 1008")
        harness.handle(.linkClosed(attempt: 1, code: 1008, reason: "unauthorized"))
        #expect(harness.connections.last == .stopped(.unauthorized(message: refusal.message)))
        harness.advance(600)
        #expect(harness.opened == [1])
    }

    @Test func noWelcomeWithinTenSecondsGivesTheAttemptUp() {
        var harness = MachineHarness(jitter: 1)
        harness.handle(.linkOpened(attempt: 1))
        harness.advance(9.9)
        #expect(harness.closed.isEmpty)
        harness.advance(0.2)
        #expect(harness.closed == [1])
        #expect(harness.connections.last == .reconnecting(attempt: 2, retryIn: 0.5, why: .noWelcome))
    }

    @Test func theAttemptCountStartsAgainOnceWelcomed() {
        var harness = MachineHarness(jitter: 1)
        harness.welcome()
        harness.drop()
        for _ in 0..<5 {
            harness.handle(.linkFailed(attempt: harness.attempt, .refused))
            harness.advance(harness.machine.configuration.policy.cap)
        }
        guard case .reconnecting(let during, _, _) = harness.connections.last else {
            Issue.record("not reconnecting")
            return
        }
        #expect(during == 7)
        harness.welcome("s1", resumed: true)
        // A fresh outage, long after: its first retry is attempt 2 again (never "attempt 61").
        harness.handle(.linkClosed(attempt: harness.attempt, code: 1006, reason: ""))
        #expect(
            harness.connections.last == .reconnecting(attempt: 2, retryIn: 0.5, why: .closed(code: 1006, reason: "")))
    }

    @Test func silenceAfterAnAnswerIsADeadNetwork() {
        var harness = MachineHarness(jitter: 1)
        harness.welcome()
        harness.present("m1")
        harness.handle(.answered(id: "m1", .failure(.cancelled, nil)))
        harness.advance(9)
        #expect(harness.closed.isEmpty)
        harness.advance(1.5)
        #expect(harness.closed == [1])
        #expect(harness.connections.last == .reconnecting(attempt: 2, retryIn: 0.5, why: .noReply))
    }

    @Test func aReplyDisarmsTheWatchdog() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.handle(.answered(id: "m1", .failure(.cancelled, nil)))
        harness.advance(5)
        harness.dismiss("m1")
        harness.advance(60)
        #expect(harness.closed.isEmpty)
    }

    @Test func typingIsThrottledToTenMessagesASecondAndTheLastValuesGo() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        for index in 0..<100 {
            harness.handle(.typed(id: "m1", textFields: ["a\(index)", ""]))
            harness.advance(0.01)
        }
        harness.advance(1)
        let inputs = harness.messages(on: 1).compactMap { if case .input(_, let fields) = $0 { fields } else { nil } }
        #expect(inputs.count <= 11)
        #expect(inputs.count >= 9)
        #expect(inputs.last == ["a99", ""])
    }

    @Test func aTapWhileOfflineIsDroppedAndSaid() {
        var harness = MachineHarness()
        harness.handle(.tapped(control: "signIn"))
        #expect(harness.sent.isEmpty)
        #expect(harness.updates.contains(.offline(what: "tap on signIn")))
        harness.welcome()
        harness.handle(.tapped(control: "signIn"))
        #expect(harness.messages(on: 1) == [.event(control: "signIn")])
    }
}
