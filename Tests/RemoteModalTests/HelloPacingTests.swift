import Foundation
import RemoteModalProtocol
import RemoteModalTestSupport
import RemoteModalTransport
import Testing

@testable import RemoteModalHost

/// Issue 33: a burst of new sessions from some addresses must not hold the loop for all of
/// them in one turn. Hellos past the turn's time (`helloMicrosecondsPerTurn`) wait for
/// later turns, served round robin by address; what a client sends after its waiting hello
/// is handled after it.
@Suite("Hello pacing: a burst of hellos is spread over turns, round robin by address")
struct HelloPacingTests {
    @Test func theQueueServesAddressesInTurnNotInArrivalOrder() {
        var queue = HelloQueue()
        for index in UInt64(0)..<5 { queue.append(ConnectionID(rawValue: index), from: "10.0.0.1") }
        queue.append(ConnectionID(rawValue: 100), from: "10.0.0.2")
        queue.append(ConnectionID(rawValue: 200), from: "10.0.0.3")
        #expect(queue.count == 7)
        var served: [UInt64] = []
        while let id = queue.popNext() { served.append(id.rawValue) }
        // The flooding address had five waiting; each other address waited behind one of them.
        #expect(served == [0, 100, 200, 1, 2, 3, 4])
        #expect(queue.isEmpty)
        #expect(queue.popNext() == nil)
    }

    @Test func everyWaitingHelloIsWelcomedAndWhatFollowedItIsAnsweredAfter() {
        // One microsecond a turn: after the first hello of a turn, every hello waits.
        let harness = HostHarness { $0.helloMicrosecondsPerTurn = 1 }
        let flood = (0..<20).map { index -> TestClient in
            let client = harness.transport.connect(peer: "127.0.0.7")
            client.hello(name: "flood \(index)")
            return client
        }
        let bystander = harness.transport.connect(peer: "127.0.0.9")
        bystander.hello(name: "bystander")
        bystander.send(.ping(id: 7))
        // Each executor task serves one waiting hello here: settle until none waits.
        for _ in 0..<100 where !(flood + [bystander]).allSatisfy({ $0.session != nil }) {
            harness.settle()
        }
        harness.settle()
        #expect(flood.allSatisfy { $0.session != nil && $0.closeCode == nil })
        #expect(bystander.session != nil)
        // The ping sent behind the hello is answered, after the welcome.
        let kinds = bystander.received.map(\.type)
        #expect(kinds.first == "welcome")
        #expect(kinds.contains("pong"))
        #expect(bystander.errors.isEmpty)
        let metrics = harness.host.metricsText
        #expect(!metrics.contains("remote_modal_hellos_deferred_total 0\n"))
        #expect(metrics.contains("remote_modal_hellos_waiting 0\n"))
        #expect(metrics.contains("remote_modal_sessions 21\n"))
    }

    @Test func connectionsThatCloseWhileTheirHellosWaitAreSkippedAndTheHostGoesOn() {
        let harness = HostHarness { $0.helloMicrosecondsPerTurn = 1 }
        let clients = (0..<6).map { index -> TestClient in
            let client = harness.transport.connect(peer: "127.0.0.7")
            client.hello(name: "c\(index)")
            return client
        }
        // Gone before its turn came (the first of the burst was served at once).
        let leaving = clients.filter { $0.session == nil }.prefix(2)
        #expect(leaving.count == 2, "the burst waits")
        for client in leaving { client.disconnect() }
        for _ in 0..<50 where harness.host.metricsText.contains("remote_modal_hellos_waiting 0\n") == false {
            harness.settle()
        }
        harness.settle()
        let staying = clients.filter { client in !leaving.contains { $0 === client } }
        #expect(staying.allSatisfy { $0.session != nil })
        let metrics = harness.host.metricsText
        // A close handled before its hello's turn leaves no session; the in-memory executor
        // may run a queued turn before the close, so a leaver's hello may be served first
        // (its session then retained, as after any drop): never a live connection.
        #expect(metrics.contains("remote_modal_connections 4\n"))
        #expect((4...6).contains { metrics.contains("remote_modal_sessions \($0)\n") })
        #expect(metrics.contains("remote_modal_hellos_waiting 0\n"))
        // The host goes on serving.
        let later = harness.transport.connect(peer: "127.0.0.9")
        later.hello(name: "later")
        for _ in 0..<10 where later.session == nil { harness.settle() }
        #expect(later.session != nil)
    }

    @Test func withoutABoundNoHelloWaits() {
        let harness = HostHarness { $0.helloMicrosecondsPerTurn = 0 }
        let clients = (0..<10).map { index -> TestClient in
            let client = harness.transport.connect(peer: "127.0.0.7")
            client.hello(name: "c\(index)")
            return client
        }
        harness.settle()
        #expect(clients.allSatisfy { $0.session != nil })
        #expect(harness.host.metricsText.contains("remote_modal_hellos_deferred_total 0\n"))
    }
}
