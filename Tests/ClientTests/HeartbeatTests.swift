import RemoteModalClient
import RemoteModalProtocol
import Testing

/// The heartbeat of docs/protocol.md (section 3), in virtual time: a silent host is given up
/// within `activeSeconds + timeoutSeconds` while something waits for it, and within
/// `idleSeconds + timeoutSeconds` when idle; any message keeps the link.
@Suite("Client heartbeat")
struct HeartbeatTests {
    /// Welcomed with the host's standard offer (idle 20 s, active 4 s, timeout 5 s).
    func welcomed() -> MachineHarness {
        var harness = MachineHarness(jitter: 1)
        harness.welcome(heartbeat: .standard)
        return harness
    }

    /// The latest `checking` the machine said of `id`'s form.
    func checking(_ harness: MachineHarness, _ id: String) -> Bool? {
        harness.updates.reversed().lazy.compactMap { update -> Bool? in
            if case .update(let form) = update, form.id == id { form.checking } else { nil }
        }.first
    }

    @Test func typedValuesAreCheckingUntilTheHostIsHeardAfterThemAndAPingFollowsThem() {
        var harness = welcomed()
        harness.present("m1")
        harness.handle(.typed(id: "m1", textFields: ["ann@example.com", "pw"]))
        #expect(checking(harness, "m1") == true, "the host has not been heard since the values went")
        harness.advance(0.35)
        #expect(harness.pings(on: 1) == 1, "a host that changes nothing sends nothing: a ping asks")
        harness.host(.pong(id: 1))
        #expect(checking(harness, "m1") == false, "the pong came after the host took the values")
    }

    @Test func typedValuesMetBySilenceStayCheckingUntilTheHostIsGivenUp() {
        var harness = welcomed()
        harness.present("m1")
        harness.handle(.typed(id: "m1", textFields: ["ann@example.com", "pw"]))
        harness.advance(5.2)
        #expect(checking(harness, "m1") == true, "never said to be checked while the host is silent")
        harness.advance(0.2)
        #expect(harness.closed == [1], "the ping after the values went unanswered")
    }

    @Test func withoutTheHeartbeatTypedValuesAreNeverMarkedChecking() {
        var harness = MachineHarness(jitter: 1)
        harness.welcome()
        harness.present("m1")
        harness.handle(.typed(id: "m1", textFields: ["ann@example.com", "pw"]))
        harness.advance(1)
        #expect(checking(harness, "m1") == nil, "a host without the heartbeat is judged by the client's own window")
        #expect(harness.pings(on: 1) == 0)
    }

    @Test func anIdleClientPingsAfterTwentySecondsAndGivesASilentHostUpWithinThirty() {
        var harness = welcomed()
        harness.advance(19.9)
        #expect(harness.pings(on: 1) == 0)
        harness.advance(0.2)
        #expect(harness.pings(on: 1) == 1)
        harness.advance(4.8)
        #expect(harness.closed.isEmpty)
        harness.advance(0.2)
        #expect(harness.closed == [1])
        #expect(harness.connections.last == .reconnecting(attempt: 2, retryIn: 0.5, why: .silent(seconds: 25)))
        #expect(harness.now <= 30)
    }

    @Test func anOpenDialogMakesTheClientPingAfterFourSecondsAndGiveUpWithinTen() {
        var harness = welcomed()
        harness.advance(10)
        harness.present("m1")
        harness.advance(3.9)
        #expect(harness.pings(on: 1) == 0)
        harness.advance(0.2)
        #expect(harness.pings(on: 1) == 1)
        harness.advance(4.8)
        #expect(harness.closed.isEmpty)
        harness.advance(0.2)
        #expect(harness.closed == [1])
        #expect(harness.connections.last == .reconnecting(attempt: 2, retryIn: 0.5, why: .silent(seconds: 9)))
    }

    @Test func aTapWhileIdleQuickensTheHeartbeatAndRepeatedTapsDoNotPutItOff() {
        var harness = welcomed()
        harness.advance(15)
        harness.handle(.tapped(control: "signIn"))
        // Tapping again and again must not restart the active timer.
        for _ in 0..<3 {
            harness.advance(1)
            harness.handle(.tapped(control: "signIn"))
        }
        harness.advance(1.1)
        #expect(harness.pings(on: 1) == 1)
        harness.advance(5)
        #expect(harness.closed == [1])
        // Given up 10 s at most after the first tap.
        #expect(harness.now <= 25.1)
    }

    @Test func anyMessageFromTheHostAnswersThePing() {
        var harness = welcomed()
        harness.present("m1")
        harness.advance(4.1)
        #expect(harness.pings(on: 1) == 1)
        harness.host(.status(seq: harness.nextSeq(), level: .info, text: "still here"))
        harness.advance(4.5)
        #expect(harness.closed.isEmpty)
        // The silence starts again from that message: the next ping comes 4 s after it.
        #expect(harness.pings(on: 1) == 2)
        harness.host(.pong(id: 2))
        harness.advance(3.9)
        #expect(harness.closed.isEmpty)
        #expect(harness.pings(on: 1) == 2)
    }

    @Test func aPongKeepsAnIdleLinkForEver() {
        var harness = welcomed()
        for round in 1...10 {
            harness.advance(20.1)
            #expect(harness.pings(on: 1) == round)
            harness.host(.pong(id: round))
        }
        #expect(harness.closed.isEmpty)
        // One ping per idle interval, no more.
        #expect(harness.pings(on: 1) == 10)
    }

    @Test func aClosedDialogGoesBackToTheIdleInterval() {
        var harness = welcomed()
        harness.present("m1")
        harness.dismiss("m1")
        harness.advance(19.9)
        #expect(harness.pings(on: 1) == 0)
        harness.advance(0.2)
        #expect(harness.pings(on: 1) == 1)
    }

    @Test func aHostThatOffersNoHeartbeatIsNeverPinged() {
        var harness = MachineHarness(jitter: 1)
        harness.welcome()
        harness.present("m1")
        harness.advance(300)
        #expect(harness.pings(on: 1) == 0)
        #expect(harness.closed.isEmpty)
    }

    @Test func anOfferOutOfRangeIsNoOfferAndTheShortestOneIsOneSecond() {
        var harness = MachineHarness(jitter: 1)
        harness.handle(.linkOpened(attempt: 1))
        harness.host(
            raw: #"{"type":"welcome","protocol":1,"session":"s1","resumed":false,"retentionSeconds":60,"#
                + #""heartbeat":{"idleSeconds":0,"activeSeconds":0,"timeoutSeconds":0}}"#)
        // A malformed offer is no offer: the welcome counts, nothing is pinged.
        #expect(harness.machine.isConnected)
        harness.advance(60)
        #expect(harness.pings(on: 1) == 0)
        var eager = MachineHarness(jitter: 1)
        eager.welcome(heartbeat: Heartbeat(idleSeconds: 1, activeSeconds: 1, timeoutSeconds: 1))
        for _ in 0..<5 {
            eager.advance(1)
            eager.host(.pong(id: nil))
        }
        #expect(eager.pings(on: 1) == 5)
    }

    @Test func theReconnectedAttemptPingsAndALatePongOfTheOldOneIsIgnored() {
        var harness = welcomed()
        harness.present("m1")
        harness.advance(9.1)
        #expect(harness.closed == [1])
        harness.advance(1)
        #expect(harness.opened == [1, 2])
        // The old attempt's pong arrives late: it belongs to no live attempt.
        harness.handle(.textReceived(attempt: 1, HostMessage.pong(id: 1).encode()))
        harness.welcome("s1", resumed: true, heartbeat: .standard)
        harness.host(.present(seq: harness.nextSeq(), id: "m1", modal: MachineHarness.signIn))
        harness.host(.resumed(seq: harness.nextSeq()))
        harness.advance(4.1)
        #expect(harness.pings(on: 2) == 1)
        #expect(harness.machine.isConnected)
    }
}
