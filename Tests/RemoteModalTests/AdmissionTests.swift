import Foundation
import RemoteModalHost
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import RemoteModalTransport
import Synchronization
import Testing

@Suite("Security: admission, answers judged as they arrive, granted groups, safe logs")
struct AdmissionTests {
    private func hello(_ harness: HostHarness, peer: String, name: String = "c", resume: String? = nil) -> TestClient {
        let client = harness.transport.connect(peer: peer)
        client.hello(name: name, resume: resume)
        harness.settle()
        return client
    }

    @Test func oneAddressCannotHoldMoreThanItsSessionsAndEvictsItsOwnRetainedOnesFirst() {
        let harness = HostHarness { $0.maxSessionsPerAddress = 3 }
        let bystander = hello(harness, peer: "127.0.0.9", name: "bystander")
        // An attacker opens sessions and drops them: each new one pushes out its own oldest.
        var dropped: [String] = []
        for _ in 0..<10 {
            let client = hello(harness, peer: "127.0.0.2")
            #expect(client.session != nil)
            dropped.append(client.session!)
            client.disconnect()
            harness.settle()
        }
        // Only the newest three can still be resumed; the rest were ended.
        let old = hello(harness, peer: "127.0.0.2", resume: dropped[0])
        #expect(old.session != nil && old.session != dropped[0])
        #expect(old.frames.first?.contains("\"resumed\":false") == true)
        // Connected sessions are never evicted: with three held open, a fourth is refused 1013.
        let held = (0..<3).map { _ in hello(harness, peer: "127.0.0.3") }
        let refused = hello(harness, peer: "127.0.0.3")
        #expect(held.allSatisfy { $0.closeCode == nil })
        #expect(refused.closeCode == .tryAgainLater)
        #expect(refused.session == nil)
        // The bystander was never touched.
        #expect(bystander.closeCode == nil)
        #expect(harness.host.metricsText.contains("remote_modal_sessions_evicted_total 8"))
        #expect(
            harness.host.metricsText.contains(
                "remote_modal_sessions_refused_total{reason=\"too many sessions from this address\"} 1"))
    }

    @Test func behindAProxySessionsAreCountedPerClientNotPerProxy() {
        let harness = HostHarness { $0.maxSessionsPerAddress = 2 }
        // Five people behind one nginx: each has its own address, none is refused.
        let people = (1...5).map { index -> TestClient in
            let client = harness.transport.connect(peer: "10.0.0.10", clientAddress: "203.0.113.\(index)")
            client.hello(name: "p\(index)")
            harness.settle()
            return client
        }
        #expect(people.allSatisfy { $0.session != nil && $0.closeCode == nil })
        // Two more from one of them: the third is over that person's cap.
        let more = (0..<2).map { _ -> TestClient in
            let client = harness.transport.connect(peer: "10.0.0.10", clientAddress: "203.0.113.1")
            client.hello(name: "again")
            harness.settle()
            return client
        }
        #expect(more[0].session != nil)
        #expect(more[1].closeCode == .tryAgainLater)
    }

    @Test func theHostWideCapAndTheRetainedBudgetEvictNothingPendingFirst() throws {
        let harness = HostHarness {
            $0.maxSessions = 4
            $0.maxRetainedSessions = 2
        }
        let withModal = hello(harness, peer: "10.0.0.1")
        let outcome = Outcome<String>()
        _ = RemoteModal.alert(
            String.self, presenter: .session(harness.session(of: withModal)), title: "Keep me",
            actions: [.default(title: "OK", mapTo: "ok")]
        ).asObservable().subscribe(outcome.observer())
        harness.settle()
        withModal.disconnect()
        harness.advance(seconds: 1)
        let idle = (0..<2).map { _ in hello(harness, peer: "10.0.0.2") }
        for client in idle {
            client.disconnect()
            harness.advance(seconds: 1)
        }
        // Three retained, budget two: the oldest with nothing pending went, not the one with a modal.
        #expect(!outcome.finished)
        let back = hello(harness, peer: "10.0.0.1", resume: withModal.session)
        #expect(back.presents.map(\.id) == ["m1"])
        // At the host-wide cap with every session connected: refused, with a reason.
        _ = hello(harness, peer: "10.0.0.3")
        _ = hello(harness, peer: "10.0.0.4")
        _ = hello(harness, peer: "10.0.0.5")
        let over = hello(harness, peer: "10.0.0.6")
        #expect(over.closeCode == .tryAgainLater)
    }

    @Test func aSessionThatCameBackAndLeftAgainIsEvictedByItsLatestDisconnect() {
        let harness = HostHarness { $0.maxSessionsPerAddress = 2 }
        let first = hello(harness, peer: "127.0.0.5", name: "first")
        let second = hello(harness, peer: "127.0.0.5", name: "second")
        first.disconnect()
        second.disconnect()
        harness.settle()
        // The first comes back and leaves many times: it is now the most recently left.
        var latest = first
        for _ in 0..<100 {
            latest = hello(harness, peer: "127.0.0.5", name: "first", resume: first.session)
            #expect(latest.session == first.session)
            latest.disconnect()
            harness.settle()
        }
        // A third session from the address pushes out the second (left longest ago), not the first.
        _ = hello(harness, peer: "127.0.0.5", name: "third")
        let firstBack = hello(harness, peer: "127.0.0.5", resume: first.session)
        #expect(firstBack.frames.first?.contains("\"resumed\":true") == true)
        firstBack.disconnect()
        harness.settle()
        let secondBack = hello(harness, peer: "127.0.0.5", resume: second.session)
        #expect(secondBack.frames.first?.contains("\"resumed\":false") == true)
        #expect(harness.host.metricsText.contains("remote_modal_sessions_evicted_total 2"))
    }

    @Test func anActionIsJudgedOnTheResultsOwnTextFields() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = signInAlert(on: harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        // Valid input enables the action, then a result carries other text: refused.
        client.send(.input(id: "m1", textFields: ["a@b", "pw"]))
        client.send(alertResult("m1", action: 1, textFields: ["no-at-sign", ""]))
        harness.settle()
        #expect(client.errors == [.actionDisabled])
        #expect(!outcome.finished)
        // Without an `input` the action's last known state is disabled: a result whose own
        // fields fail the rule gets `bad_message` (v1's code), one whose fields pass it is
        // accepted (the rule judges the answer, not what the host last heard by `input`).
        let fresh = harness.connect()
        let second = Outcome<String>()
        _ = signInAlert(on: harness.session(of: fresh)).subscribe(second.observer())
        harness.settle()
        fresh.send(alertResult("m1", action: 1, textFields: ["ann@example.com", ""]))
        harness.settle()
        #expect(fresh.errors == [.badMessage])
        #expect(!second.finished)
        fresh.send(alertResult("m1", action: 1, textFields: ["ann@example.com", "pw"]))
        harness.settle()
        #expect(fresh.errors == [.badMessage])
        #expect(second.elements == ["ann@example.com"])
        client.send(alertResult("m1", action: 1, textFields: ["ann@example.com", "pw"]))
        harness.settle()
        #expect(outcome.elements == ["ann@example.com"])
    }

    @Test func aGroupMemberCannotExhaustAnotherMembersPendingLimit() {
        let harness = HostHarness { $0.maxPendingModalsPerSession = 2 }
        let member = harness.connect(name: "member", group: "lobby")
        let noisy = harness.connect(name: "noisy", group: "lobby")
        let honest = harness.connect(name: "honest", group: "lobby")
        var noisyOutcomes: [Outcome<Int>] = []
        for _ in 0..<4 {
            let outcome = Outcome<Int>()
            _ = RemoteModal.alert(
                Int.self, presenter: .sameGroup(as: harness.session(of: noisy)), title: "Approve?",
                actions: [.default(title: "Yes", mapTo: 1)]
            ).asObservable().subscribe(outcome.observer())
            noisyOutcomes.append(outcome)
        }
        harness.settle()
        // The noisy member's third and fourth requests hit its own limit.
        #expect(noisyOutcomes.filter { $0.error == .tooManyPending }.count == 2)
        let honestOutcome = Outcome<Int>()
        _ = RemoteModal.alert(
            Int.self, presenter: .sameGroup(as: harness.session(of: honest)), title: "Approve?",
            actions: [.default(title: "Yes", mapTo: 1)]
        ).asObservable().subscribe(honestOutcome.observer())
        harness.settle()
        #expect(honestOutcome.error == nil)
        #expect(member.presents.count == 3)
    }

    @Test func anActionDisabledForOneSessionIsShownDisabledThereAndRefusedFromIt() {
        let harness = HostHarness()
        let asker = harness.connect(name: "asker", group: "lobby")
        let peer = harness.connect(name: "peer", group: "lobby")
        let outcome = Outcome<String>()
        let session = harness.session(of: asker)
        _ = RemoteModal.alert(
            String.self, presenter: Presenter.sameGroup(as: session).disablingActions([0], for: session),
            title: "Approve request?",
            actions: [.default(title: "Approve", mapTo: "approved"), .destructive(title: "Reject", mapTo: "rejected")]
        ).asObservable().subscribe(outcome.observer())
        harness.settle()
        #expect(asker.presents.first?.modal.actions?.map(\.enabled) == [false, true])
        #expect(peer.presents.first?.modal.actions?.map(\.enabled) == [true, true])
        asker.send(alertResult("m1", action: 0))
        harness.settle()
        #expect(asker.errors == [.badMessage])
        #expect(!outcome.finished)
        // A resume re-presents it the same way.
        asker.disconnect()
        harness.settle()
        let back = harness.connect(name: "asker", group: "lobby", resume: asker.session)
        #expect(back.presents.first?.modal.actions?.map(\.enabled) == [false, true])
        peer.send(alertResult("m1", action: 0))
        harness.settle()
        #expect(outcome.elements == ["approved"])
    }

    @Test func tokenGrantsNameTheClientAndLimitItsGroups() throws {
        let grants = try TokenGrant.parse(
            """
            {"tokens": [
              {"token": "kiosk-token-0123456789", "name": "Lobby kiosk", "groups": ["lobby"]},
              {"token": "desk-token-0123456789", "name": "Security desk", "groups": "*"},
              {"token": "visitor-token-0123456789", "name": "Visitor"}
            ]}
            """)
        let harness = HostHarness { $0.tokenGrants = grants }
        let kiosk = harness.transport.connect()
        kiosk.hello(name: "Security Officer", group: "lobby", token: "kiosk-token-0123456789")
        harness.settle()
        #expect(harness.session(of: kiosk).client.name == "Lobby kiosk")
        let intruder = harness.transport.connect()
        intruder.hello(name: "x", group: "lobby", token: "visitor-token-0123456789")
        let stranger = harness.transport.connect()
        stranger.hello(name: "x", group: "lobby", token: "no-such-token-0123456789")
        harness.settle()
        // A token without the group and a wrong token get the same answer: a bare close 1008
        // (issue #33: an error for one of them told a guesser which tokens are real).
        #expect(intruder.frames.isEmpty && stranger.frames.isEmpty)
        #expect(intruder.closeCode == .policyViolation && intruder.session == nil)
        #expect(stranger.closeCode == .policyViolation && stranger.session == nil)
        let desk = harness.transport.connect()
        desk.hello(name: "x", group: "anything", token: "desk-token-0123456789")
        harness.settle()
        #expect(desk.session != nil)
        // A session resumes only with the grant that created it.
        kiosk.disconnect()
        harness.settle()
        let hijack = harness.transport.connect()
        hijack.hello(name: "x", group: "anything", token: "desk-token-0123456789", resume: kiosk.session)
        harness.settle()
        #expect(hijack.session != kiosk.session)
    }

    @Test(arguments: [
        ("{}", "expected {\"tokens\": [...]}"),
        ("{\"tokens\": [{\"token\": \"short\", \"name\": \"x\"}]}", "at least 16 bytes"),
        ("{\"tokens\": [{\"token\": \"0123456789abcdef\"}]}", "'name'"),
        ("{\"tokens\": [{\"token\": \"0123456789abcdef\", \"name\": \"x\", \"groups\": 3}]}", "'groups'"),
    ])
    func badTokenFilesSayWhatIsWrong(text: String, expected: String) {
        #expect {
            _ = try TokenGrant.parse(text)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func clientStringsCannotForgeOrPaintLogLines() {
        let lines = LinesSink()
        let settings = LoggerSettings(level: .debug, sink: lines.sink)
        let logger = Logger(label: "t", settings: settings)
        logger.info("session created for \(logSafe("evil\n12:00:00 info [host] forged\u{1B}[2J"))")
        #expect(lines.all.count == 1)
        #expect(!lines.all[0].contains("\n") && !lines.all[0].contains("\u{1B}"))
        #expect(lines.all[0].contains("\\n12:00:00") && lines.all[0].contains("\\u001b[2J"))
        #expect(
            logSafe(String(repeating: "a", count: 100)) == "\"" + String(repeating: "a", count: 64) + "…(36 more)\"")
        // Even a message built without logSafe stays one line.
        logger.info("raw \u{2028} and \r")
        #expect(lines.all[1].hasSuffix("raw \\u2028 and \\r"))
    }
}

private final class LinesSink: Sendable {
    private let lines = Mutex<[String]>([])
    var sink: Logger.Sink { { [self] line in lines.withLock { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }
}
