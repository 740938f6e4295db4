import Testing
import Transport

@testable import WebSocket

/// The host-wide outgoing budget, when full, cuts the connection holding the most unsent
/// bytes: clients that stop reading must not get a healthy one disconnected.
@Suite("Host-wide outgoing budget")
struct OutgoingBudgetTests {
    static func shared(_ held: [UInt64: Int]) -> ServiceLoop.Shared {
        var shared = ServiceLoop.Shared()
        for (id, bytes) in held {
            let queue = OutgoingQueue(limit: 1 << 20)
            if bytes > 0 { _ = queue.append(.message(.text(String(repeating: "x", count: bytes)))) }
            shared.queues[ConnectionID(rawValue: id)] = queue
            shared.queuedBytes += bytes
        }
        return shared
    }

    @Test func theLargestHolderIsCutNotTheSender() {
        var shared = Self.shared([1: 600, 2: 300, 3: 100])
        var cut: [ConnectionID] = []
        let room = ServiceLoop.makeRoom(
            for: 200, sender: ConnectionID(rawValue: 3), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut == [ConnectionID(rawValue: 1)])
        #expect(shared.queuedBytes == 400)
        #expect(shared.queues[ConnectionID(rawValue: 1)]?.closing == true)
        #expect(shared.queues[ConnectionID(rawValue: 1)]?.bytes == 0)
        #expect(shared.slowConsumers == [ConnectionID(rawValue: 1)])
        #expect(shared.stats.slowConsumers == 1)
        #expect(shared.queues[ConnectionID(rawValue: 2)]?.closing == false)
    }

    @Test func severalAreCutLargestFirstUntilTheMessageFits() {
        var shared = Self.shared([1: 400, 2: 350, 3: 250, 4: 0])
        var cut: [ConnectionID] = []
        let room = ServiceLoop.makeRoom(
            for: 700, sender: ConnectionID(rawValue: 4), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut == [ConnectionID(rawValue: 1), ConnectionID(rawValue: 2)])
        #expect(shared.queuedBytes == 250)
    }

    @Test func aSenderHoldingTheMostIsTheOneCut() {
        var shared = Self.shared([1: 300, 2: 700])
        var cut: [ConnectionID] = []
        let room = ServiceLoop.makeRoom(
            for: 100, sender: ConnectionID(rawValue: 2), in: &shared, budget: 1_000, cut: &cut)
        #expect(!room)
        #expect(cut.isEmpty)
        #expect(shared.queuedBytes == 1_000)
    }

    @Test func aConnectionAlreadyClosingIsPassedOver() {
        var shared = Self.shared([1: 600, 2: 300, 3: 100])
        _ = shared.queues[ConnectionID(rawValue: 1)]!.append(.close(.normal, "bye"))
        var cut: [ConnectionID] = []
        let room = ServiceLoop.makeRoom(
            for: 200, sender: ConnectionID(rawValue: 3), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut == [ConnectionID(rawValue: 2)])
        #expect(shared.queuedBytes == 700)
    }

    @Test func withRoomNothingIsCut() {
        var shared = Self.shared([1: 600])
        var cut: [ConnectionID] = []
        #expect(
            ServiceLoop.makeRoom(for: 400, sender: ConnectionID(rawValue: 1), in: &shared, budget: 1_000, cut: &cut))
        #expect(cut.isEmpty)
    }
}
