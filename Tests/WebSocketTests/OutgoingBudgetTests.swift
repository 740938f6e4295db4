import Dispatch
import Testing
import Transport

@testable import WebSocket

/// The host-wide outgoing budget, when full, cuts a connection whose socket is full, else
/// the one holding the most unsent bytes: clients that stop reading must not get a healthy
/// one disconnected. A buffer several queues share is counted once.
@Suite("Host-wide outgoing budget")
struct OutgoingBudgetTests {
    static func shared(_ held: [UInt64: Int]) -> ServiceLoop.Shared {
        var shared = ServiceLoop.Shared()
        for (id, bytes) in held {
            let queue = OutgoingQueue(limit: 1 << 20)
            if bytes > 0 {
                _ = queue.append(.message(.text(String(repeating: "x", count: bytes))), budget: &shared.budget)
            }
            shared.queues[ConnectionID(rawValue: id)] = queue
        }
        return shared
    }

    static func payload(_ bytes: Int) -> OutgoingPayload { .text(String(repeating: "y", count: bytes)) }

    static func id(_ raw: UInt64) -> ConnectionID { ConnectionID(rawValue: raw) }

    @Test func theLargestHolderIsCutNotTheSender() {
        var shared = Self.shared([1: 600, 2: 300, 3: 100])
        var cut: [ConnectionID] = []
        let room = ServiceLoop.makeRoom(
            for: Self.payload(200), sender: ConnectionID(rawValue: 3), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut == [ConnectionID(rawValue: 1)])
        #expect(shared.budget.bytes == 400)
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
            for: Self.payload(700), sender: ConnectionID(rawValue: 4), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut == [ConnectionID(rawValue: 1), ConnectionID(rawValue: 2)])
        #expect(shared.budget.bytes == 250)
    }

    @Test func aSenderHoldingTheMostIsTheOneCut() {
        var shared = Self.shared([1: 300, 2: 700])
        var cut: [ConnectionID] = []
        let room = ServiceLoop.makeRoom(
            for: Self.payload(100), sender: ConnectionID(rawValue: 2), in: &shared, budget: 1_000, cut: &cut)
        #expect(!room)
        #expect(cut.isEmpty)
        #expect(shared.budget.bytes == 1_000)
    }

    @Test func aConnectionAlreadyClosingIsPassedOver() {
        var shared = Self.shared([1: 600, 2: 300, 3: 100])
        _ = shared.queues[ConnectionID(rawValue: 1)]!.append(.close(.normal, "bye"), budget: &shared.budget)
        var cut: [ConnectionID] = []
        let room = ServiceLoop.makeRoom(
            for: Self.payload(200), sender: ConnectionID(rawValue: 3), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut == [ConnectionID(rawValue: 2)])
        #expect(shared.budget.bytes == 700)
    }

    @Test func withRoomNothingIsCut() {
        var shared = Self.shared([1: 600])
        var cut: [ConnectionID] = []
        #expect(
            ServiceLoop.makeRoom(
                for: Self.payload(400), sender: ConnectionID(rawValue: 1), in: &shared, budget: 1_000, cut: &cut))
        #expect(cut.isEmpty)
    }

    @Test func aFullSocketIsCutBeforeALargerHolderThatReads() {
        // 1 reads (its queue is just full of this turn's frames); 2 and 3 stopped reading
        // and their sockets are full; 2 holds more.
        var shared = Self.shared([1: 600, 2: 150, 3: 100, 4: 0])
        shared.queues[Self.id(2)]?.blocked(at: 2_000, holding: 0, budget: &shared.budget)
        shared.queues[Self.id(3)]?.blocked(at: 1_000, holding: 0, budget: &shared.budget)
        var cut: [ConnectionID] = []
        #expect(ServiceLoop.makeRoom(for: Self.payload(400), sender: Self.id(4), in: &shared, budget: 1_000, cut: &cut))
        #expect(cut == [Self.id(2), Self.id(3)])
        #expect(shared.budget.bytes == 600)
        #expect(shared.queues[Self.id(1)]?.closing == false)
    }

    @Test func aReaderThatSendsIsNotCutWhileAFullSocketHoldsBytes() {
        // The sender holds the most, but another connection's socket is full: that one goes.
        var shared = Self.shared([1: 700, 2: 200])
        shared.queues[Self.id(2)]?.blocked(at: 5, holding: 0, budget: &shared.budget)
        var cut: [ConnectionID] = []
        #expect(ServiceLoop.makeRoom(for: Self.payload(200), sender: Self.id(1), in: &shared, budget: 1_000, cut: &cut))
        #expect(cut == [Self.id(2)])
    }

    @Test func onATieTheSenderIsNotTheOneCut() {
        for _ in 0..<20 {
            var shared = Self.shared([1: 500, 2: 500])
            var cut: [ConnectionID] = []
            #expect(
                ServiceLoop.makeRoom(for: Self.payload(100), sender: Self.id(2), in: &shared, budget: 1_000, cut: &cut))
            #expect(cut == [Self.id(1)])
        }
    }

    @Test func aBufferSharedByManyQueuesIsCountedOnce() {
        var budget = OutgoingBudget()
        let broadcast = OutgoingPayload.utf8(Array(repeating: UInt8(ascii: "z"), count: 55_000))
        let queues = (0..<20).map { _ in OutgoingQueue(limit: 1 << 20) }
        #expect(budget.cost(of: broadcast) == 55_000)
        for queue in queues { #expect(queue.append(.message(broadcast), budget: &budget) == .queued) }
        #expect(budget.bytes == 55_000)
        #expect(budget.cost(of: broadcast) == 0)
        #expect(queues.allSatisfy { $0.bytes == 55_000 })  // each connection's own limit counts its copy
        // Small payloads are counted per copy.
        let small = OutgoingPayload.utf8(Array(repeating: UInt8(ascii: "s"), count: 100))
        for queue in queues.prefix(3) { _ = queue.append(.message(small), budget: &budget) }
        #expect(budget.bytes == 55_300)
        // The bytes are released when the last holder writes or drops its copy.
        for queue in queues.dropLast() { _ = queue.popFirst(budget: &budget) }
        #expect(budget.bytes == 55_300)
        queues.last!.dropAll(budget: &budget)
        #expect(budget.bytes == 300)
        _ = queues[0].overflow(reason: "test", budget: &budget)
        #expect(budget.bytes == 200)
        for queue in queues[1..<3] { _ = queue.popFirst(budget: &budget) }
        #expect(budget.bytes == 0)
    }

    @Test func aBroadcastToASessionsStalledConnectionsFitsWhereCopiesWouldNot() {
        // 20 connections share one 55 KB message: 1.1 MB counted per copy, 55 KB as one buffer.
        var shared = Self.shared([:])
        let broadcast = OutgoingPayload.utf8(Array(repeating: UInt8(ascii: "z"), count: 55_000))
        var cut: [ConnectionID] = []
        for raw in 1...20 {
            let queue = OutgoingQueue(limit: 1 << 20)
            shared.queues[Self.id(UInt64(raw))] = queue
            #expect(
                ServiceLoop.makeRoom(
                    for: broadcast, sender: Self.id(UInt64(raw)), in: &shared, budget: 1 << 20, cut: &cut))
            _ = queue.append(.message(broadcast), budget: &shared.budget)
        }
        #expect(cut.isEmpty)
        #expect(shared.budget.bytes == 55_000)
    }

    @Test func aSlowReaderFullSinceEarlierIsNotCutForAClientThatStoppedHoldingMore() {
        // 1 reads slowly: full again since the start of its big message, holding 120.
        // 2 stopped reading a moment later and holds 900: it is the one to cut.
        var shared = Self.shared([1: 120, 2: 900, 3: 0])
        shared.queues[Self.id(1)]?.blocked(at: 1_000, holding: 0, budget: &shared.budget)
        shared.queues[Self.id(2)]?.blocked(at: 1_005, holding: 0, budget: &shared.budget)
        var cut: [ConnectionID] = []
        #expect(ServiceLoop.makeRoom(for: Self.payload(100), sender: Self.id(3), in: &shared, budget: 1_050, cut: &cut))
        #expect(cut == [Self.id(2)])
    }

    @Test func onATieOfBytesTheOneHeardFromLeastRecentlyGoesFirst() {
        var shared = Self.shared([1: 300, 2: 300, 3: 0])
        shared.queues[Self.id(1)]?.lastHeard = 40
        shared.queues[Self.id(2)]?.lastHeard = 7
        var cut: [ConnectionID] = []
        #expect(ServiceLoop.makeRoom(for: Self.payload(500), sender: Self.id(3), in: &shared, budget: 1_000, cut: &cut))
        #expect(cut == [Self.id(2)])
    }

    @Test func aSocketFullForAMomentIsNotStalledButOneFullForSecondsIs() {
        // 1 reads: its socket filled a millisecond ago as a big message went out, and lws
        // keeps 60,000 bytes of it. 2 has been full for five seconds and holds less.
        let now = DispatchTime.now().uptimeNanoseconds
        var shared = Self.shared([1: 0, 2: 100, 3: 0])
        shared.queues[Self.id(1)]?.blocked(at: now - 1_000_000, holding: 60_000, budget: &shared.budget)
        shared.queues[Self.id(2)]?.blocked(at: now - 5_000_000_000, holding: 20_000, budget: &shared.budget)
        var cut: [ConnectionID] = []
        #expect(
            ServiceLoop.makeRoom(for: Self.payload(1_000), sender: Self.id(3), in: &shared, budget: 80_000, cut: &cut))
        #expect(cut == [Self.id(2)])
    }

    @Test func aBurstThatFillsEverySocketAtOnceCutsTheSilentConnectionsNotTheOneTalking() {
        // A session's 60 KB broadcast left 60,000 bytes with lws on its reader (who just
        // answered) and on two connections that never said anything after their hello.
        let now = DispatchTime.now().uptimeNanoseconds
        var shared = Self.shared([1: 0, 2: 0, 3: 0, 4: 0])
        for raw in 1...3 {
            shared.queues[Self.id(UInt64(raw))]?.blocked(at: now - 2_000_000, holding: 60_000, budget: &shared.budget)
        }
        shared.queues[Self.id(1)]?.lastHeard = 99
        var cut: [ConnectionID] = []
        #expect(
            ServiceLoop.makeRoom(for: Self.payload(50_000), sender: Self.id(4), in: &shared, budget: 150_000, cut: &cut)
        )
        #expect(Set(cut) == [Self.id(2), Self.id(3)])
        #expect(shared.queues[Self.id(1)]?.closing == false)
    }

    @Test func whatLwsKeepsOfAWriteIsCountedUntilTheSocketDrains() {
        var shared = Self.shared([1: 100, 2: 400])
        // 1's socket took only part of a 50,000-byte write: lws keeps the rest.
        shared.queues[Self.id(1)]?.blocked(at: 7, holding: 50_000, budget: &shared.budget)
        #expect(shared.budget.bytes == 50_500)
        #expect(shared.queues[Self.id(1)]?.heldBytes == 50_100)
        // It counts when choosing whom to cut: 1 now holds the most.
        #expect(ServiceLoop.cutCandidate(in: shared.queues, sender: Self.id(2))?.0 == Self.id(1))
        shared.queues[Self.id(1)]?.drained(budget: &shared.budget)
        #expect(shared.budget.bytes == 500)
        #expect(shared.queues[Self.id(1)]?.blockedSince == nil)
        // A connection that closes while lws holds bytes releases them too.
        shared.queues[Self.id(2)]?.blocked(at: 9, holding: 30_000, budget: &shared.budget)
        #expect(shared.budget.bytes == 30_500)
        shared.queues[Self.id(2)]?.dropAll(budget: &shared.budget)
        #expect(shared.budget.bytes == 100)
    }
}
