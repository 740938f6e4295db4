import RemoteModalHost
import RemoteModalProtocol
import Testing

@Suite("Handshake, sessions and connection limits")
struct HandshakeTests {
    @Test func helloGetsWelcomeWithAFreshRandomSession() {
        let harness = HostHarness()
        let first = harness.connect()
        let second = harness.connect()
        guard case .welcome(let id, let resumed, let retention, _, _)? = first.received.first else {
            Issue.record("no welcome")
            return
        }
        #expect(!resumed)
        #expect(retention == 60)
        #expect(id.count == 22)
        #expect(id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(first.session != second.session)
    }

    @Test func messagesBeforeHelloGetHelloRequired() {
        let harness = HostHarness()
        let client = harness.transport.connect()
        client.send(.event(control: "x"))
        harness.settle()
        #expect(client.errors == [.helloRequired])
        #expect(client.closeCode == nil)
        client.hello()
        harness.settle()
        #expect(client.session != nil)
    }

    @Test func otherProtocolVersionIsRefusedAndClosed() {
        let harness = HostHarness()
        let client = harness.transport.connect()
        client.send(
            .hello(Hello(protocolVersion: 2, client: ClientDescription(kind: "t", name: "t"), capabilities: [])))
        harness.settle()
        #expect(client.errors == [.unsupportedProtocol])
        #expect(client.closeCode == .policyViolation)
        #expect(client.session == nil)
    }

    @Test(arguments: [nil, "wrong", "s3cret-but-longer"])
    func wrongOrMissingTokenClosesWithoutWelcome(token: String?) {
        let harness = HostHarness { $0.accessToken = "s3cret" }
        let client = harness.transport.connect()
        client.hello(token: token)
        harness.settle()
        #expect(client.closeCode == .policyViolation)
        #expect(client.session == nil)
        #expect(client.received.isEmpty)
    }

    @Test func rightTokenIsWelcomed() {
        let harness = HostHarness { $0.accessToken = "s3cret" }
        let client = harness.transport.connect()
        client.hello(token: "s3cret")
        harness.settle()
        #expect(client.session != nil)
    }

    @Test func helloTimeoutClosesWith1008() {
        let harness = HostHarness()
        let silent = harness.transport.connect()
        let polite = harness.connect()
        harness.advance(seconds: 9)
        #expect(silent.closeCode == nil)
        harness.advance(seconds: 2)
        #expect(silent.closeCode == .policyViolation)
        #expect(polite.closeCode == nil)
    }

    @Test func twentyErrorsInARowClose() {
        let harness = HostHarness()
        let noisy = harness.connect()
        let bystander = harness.connect()
        for _ in 0..<19 { noisy.send(raw: "{") }
        harness.settle()
        #expect(noisy.closeCode == nil)
        noisy.send(raw: "nope")
        harness.settle()
        #expect(noisy.errors.count == 20)
        #expect(noisy.errors.allSatisfy { $0 == .badJSON })
        #expect(noisy.closeCode == .policyViolation)
        #expect(bystander.closeCode == nil)
    }

    @Test func aGoodMessageResetsTheErrorCount() {
        let harness = HostHarness()
        let client = harness.connect()
        for round in 0..<3 {
            for _ in 0..<15 { client.send(raw: "{") }
            client.send(.event(control: "none-\(round)"))
        }
        harness.settle()
        #expect(client.closeCode == nil)
        #expect(client.errors.count == 45)
    }

    @Test func floodsPastTheRateLimitAreRefused() {
        let harness = HostHarness()
        let client = harness.connect()
        for _ in 0..<260 { client.send(.event(control: "none")) }
        harness.settle()
        // The burst of 200 (hello took one) passes; the clock does not move, so the rest are refused.
        #expect(client.errors.filter { $0 == .rateLimited }.count == 20)
        #expect(client.closeCode == .policyViolation)
    }

    @Test func binaryFramesAreRefused() {
        let harness = HostHarness()
        let client = harness.connect()
        client.sendBinary([1, 2, 3])
        harness.settle()
        #expect(client.errors == [.badMessage])
    }

    @Test func unknownTypeGetsUnknownTypeAndNothingElse() {
        let harness = HostHarness()
        let client = harness.connect()
        let before = client.received.count
        client.send(raw: "{\"type\":\"teleport\"}")
        harness.settle()
        #expect(client.errors == [.unknownType])
        #expect(client.received.count == before + 1)
    }

    @Test func sequenceNumbersIncreaseAcrossReconnects() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)
        session.notify("one")
        harness.settle()
        client.disconnect()
        harness.settle()
        session.notify("two")
        let again = harness.connect(resume: client.session)
        session.notify("three")
        harness.settle()
        let seqs = (client.received + again.received).compactMap(\.seq)
        #expect(seqs == seqs.sorted())
        #expect(Set(seqs).count == seqs.count)
        #expect(again.statuses == ["three"])
    }
}
