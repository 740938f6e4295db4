import RemoteModalHost
import RemoteModalProtocol
import Testing

/// The host's side of the heartbeat (docs/protocol.md, section 3): offered in `welcome`,
/// `pong` at once to the asking connection only, with no `seq`.
@Suite("Host heartbeat")
struct HeartbeatHostTests {
    @Test func welcomeOffersTheStandardHeartbeatAndNoneWhenConfiguredOff() {
        let harness = HostHarness()
        let client = harness.connect()
        guard case .welcome(_, _, _, let offer, _)? = client.received.first else {
            Issue.record("no welcome")
            return
        }
        #expect(offer == Heartbeat(idleSeconds: 20, activeSeconds: 4, timeoutSeconds: 5))
        let old = HostHarness { $0.heartbeat = nil }
        guard case .welcome(_, _, _, let none, _)? = old.connect().received.first else {
            Issue.record("no welcome")
            return
        }
        #expect(none == nil)
    }

    @Test func aPingGetsAPongOnItsOwnConnectionWithoutASeq() {
        let harness = HostHarness()
        let client = harness.connect()
        let other = harness.transport.connect()
        other.hello(resume: client.session)
        harness.settle()
        client.clearFrames()
        other.clearFrames()
        client.send(.ping(id: 41))
        client.send(.ping(id: nil))
        harness.settle()
        #expect(client.received == [.pong(id: 41), .pong(id: nil)])
        #expect(client.frames.allSatisfy { !$0.contains("\"seq\"") })
        #expect(other.received.isEmpty)
        #expect(client.errors.isEmpty)
    }

    @Test func aPingBeforeHelloIsRefusedAndABadIDIsABadMessage() {
        let harness = HostHarness()
        let early = harness.transport.connect()
        early.send(.ping(id: 1))
        harness.settle()
        #expect(early.errors == [.helloRequired])
        let client = harness.connect()
        client.send(raw: #"{"type":"ping","id":"seven"}"#)
        harness.settle()
        #expect(client.errors == [.badMessage])
    }
}
