import Dispatch
import Foundation
import RemoteModalTransport
import Testing

@testable import RemoteModalWebSocket

/// The host-wide outgoing budget, when full, cuts first a connection whose socket is full and
/// whose client takes nothing, else the one holding the most bytes of its own: clients that
/// stop reading must not get a healthy one disconnected. A buffer several queues share is
/// counted once; what lws keeps of a write is counted until the socket drains.
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

    /// Marks connection `raw`'s socket full since `filledAt` (monotonic nanoseconds), with
    /// `holding` bytes of a write left with lws.
    static func fill(_ shared: inout ServiceLoop.Shared, _ raw: UInt64, filledAt: UInt64, holding: Int = 0) {
        shared.queues[id(raw)]?.filled(at: filledAt, holding: holding, acknowledged: nil, budget: &shared.budget)
    }

    /// A moment `ago` nanoseconds before now.
    static func ago(_ nanoseconds: UInt64) -> UInt64 { DispatchTime.now().uptimeNanoseconds - nanoseconds }

    /// Runs `makeRoom` with the clients of `readers` taking bytes while their sockets are
    /// full, and `unacknowledged` bytes in the sockets of the connections it names.
    static func makeRoom(
        _ bytes: Int, sender: UInt64, in shared: inout ServiceLoop.Shared, budget: Int, readers: Set<UInt64> = [],
        unacknowledged: [UInt64: Int] = [:]
    ) -> (Bool, [ConnectionID]) {
        var names: [ObjectIdentifier: UInt64] = [:]
        for (id, queue) in shared.queues { names[ObjectIdentifier(queue)] = id.rawValue }
        var cut: [ServiceLoop.BudgetCut] = []
        let room = ServiceLoop.makeRoom(
            for: payload(bytes), sender: id(sender), in: &shared, budget: budget, cut: &cut,
            observe: { queue in
                let raw = names[ObjectIdentifier(queue)] ?? 0
                return ServiceLoop.ClientProgress(
                    readsWhileFull: queue.blocked && readers.contains(raw), unacknowledged: unacknowledged[raw] ?? 0)
            })
        return (room, cut.map(\.id))
    }

    @Test func theLargestHolderIsCutNotTheSender() {
        var shared = Self.shared([1: 600, 2: 300, 3: 100])
        var cut: [ServiceLoop.BudgetCut] = []
        let room = ServiceLoop.makeRoom(
            for: Self.payload(200), sender: ConnectionID(rawValue: 3), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut.map(\.id) == [ConnectionID(rawValue: 1)])
        #expect(shared.budget.bytes == 400)
        #expect(shared.queues[ConnectionID(rawValue: 1)]?.closing == true)
        #expect(shared.queues[ConnectionID(rawValue: 1)]?.bytes == 0)
        #expect(shared.slowConsumers == [ConnectionID(rawValue: 1)])
        #expect(shared.stats.slowConsumers == 1)
        #expect(shared.queues[ConnectionID(rawValue: 2)]?.closing == false)
    }

    @Test func severalAreCutLargestFirstUntilTheMessageFits() {
        var shared = Self.shared([1: 400, 2: 350, 3: 250, 4: 0])
        var cut: [ServiceLoop.BudgetCut] = []
        let room = ServiceLoop.makeRoom(
            for: Self.payload(700), sender: ConnectionID(rawValue: 4), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut.map(\.id) == [ConnectionID(rawValue: 1), ConnectionID(rawValue: 2)])
        #expect(shared.budget.bytes == 250)
    }

    @Test func aSenderHoldingTheMostIsTheOneCut() {
        var shared = Self.shared([1: 300, 2: 700])
        var cut: [ServiceLoop.BudgetCut] = []
        let room = ServiceLoop.makeRoom(
            for: Self.payload(100), sender: ConnectionID(rawValue: 2), in: &shared, budget: 1_000, cut: &cut)
        #expect(!room)
        #expect(cut.isEmpty)
        #expect(shared.budget.bytes == 1_000)
    }

    @Test func aConnectionAlreadyClosingIsPassedOver() {
        var shared = Self.shared([1: 600, 2: 300, 3: 100])
        _ = shared.queues[ConnectionID(rawValue: 1)]!.append(.close(.normal, "bye"), budget: &shared.budget)
        var cut: [ServiceLoop.BudgetCut] = []
        let room = ServiceLoop.makeRoom(
            for: Self.payload(200), sender: ConnectionID(rawValue: 3), in: &shared, budget: 1_000, cut: &cut)
        #expect(room)
        #expect(cut.map(\.id) == [ConnectionID(rawValue: 2)])
        #expect(shared.budget.bytes == 700)
    }

    @Test func withRoomNothingIsCut() {
        var shared = Self.shared([1: 600])
        var cut: [ServiceLoop.BudgetCut] = []
        #expect(
            ServiceLoop.makeRoom(
                for: Self.payload(400), sender: ConnectionID(rawValue: 1), in: &shared, budget: 1_000, cut: &cut))
        #expect(cut.isEmpty)
    }

    @Test func aStalledSocketIsCutBeforeALargerHolderThatReads() {
        // 1 reads (its queue is just full of this turn's frames); 2 and 3 have been full for
        // seconds and their clients take nothing.
        var shared = Self.shared([1: 600, 2: 150, 3: 100, 4: 0])
        Self.fill(&shared, 2, filledAt: Self.ago(3_000_000_000))
        Self.fill(&shared, 3, filledAt: Self.ago(2_000_000_000))
        let (room, cut) = Self.makeRoom(400, sender: 4, in: &shared, budget: 1_000, unacknowledged: [2: 1, 3: 1])
        #expect(room)
        #expect(cut == [Self.id(2), Self.id(3)])
        #expect(shared.budget.bytes == 600)
        #expect(shared.queues[Self.id(1)]?.closing == false)
    }

    @Test func aSenderHoldingTheMostIsNotCutWhileAStalledSocketHoldsBytes() {
        var shared = Self.shared([1: 700, 2: 200])
        Self.fill(&shared, 2, filledAt: Self.ago(1_000_000_000))
        let (room, cut) = Self.makeRoom(200, sender: 1, in: &shared, budget: 1_000, unacknowledged: [2: 4_000])
        #expect(room)
        #expect(cut == [Self.id(2)])
    }

    @Test func aSlowReaderIsNotCutForAClientThatStoppedWhateverEachHolds() {
        // 1 reads slowly: its socket is full, has been for longer, and it may hold more, but
        // its client takes bytes. 2 stopped reading.
        for (slow, stopped) in [(120, 900), (700, 50)] {
            var shared = Self.shared([1: slow, 2: stopped, 3: 0])
            Self.fill(&shared, 1, filledAt: Self.ago(5_000_000_000))
            Self.fill(&shared, 2, filledAt: Self.ago(200_000_000))
            let (room, cut) = Self.makeRoom(
                200, sender: 3, in: &shared, budget: slow + 200, readers: [1], unacknowledged: [1: 400_000, 2: 400_000])
            #expect(room)
            #expect(cut == [Self.id(2)])
        }
    }

    @Test func aPromptReaderFullForAMomentGoesAfterClientsThatStoppedReading() {
        // The reader's socket filled a millisecond ago with lws keeping 55 KB of a status, and
        // its client has not read yet; 2 and 3 have been full for seconds.
        var shared = Self.shared([1: 0, 2: 0, 3: 0, 4: 0])
        Self.fill(&shared, 1, filledAt: Self.ago(1_000_000), holding: 55_000)
        Self.fill(&shared, 2, filledAt: Self.ago(3_000_000_000), holding: 20_000)
        Self.fill(&shared, 3, filledAt: Self.ago(2_000_000_000), holding: 20_000)
        let (room, cut) = Self.makeRoom(
            50_000, sender: 4, in: &shared, budget: 110_000, unacknowledged: [2: 4_000, 3: 4_000])
        #expect(room)
        #expect(Set(cut) == [Self.id(2), Self.id(3)])
        #expect(shared.queues[Self.id(1)]?.closing == false)
    }

    @Test func beforeAnySocketIsStalledWhatTheKernelHoldsUnreadDecides() {
        // A burst: the reader's socket is full for a moment (17 KB left with lws); 2 and 3
        // stopped reading, their sockets not full yet, but holding 400 KB the client never
        // acknowledged.
        var shared = Self.shared([1: 0, 2: 17_000, 3: 17_000, 4: 0])
        Self.fill(&shared, 1, filledAt: Self.ago(1_000_000), holding: 17_000)
        let (room, cut) = Self.makeRoom(
            20_000, sender: 4, in: &shared, budget: 60_000, unacknowledged: [2: 400_000, 3: 390_000])
        #expect(room)
        #expect(cut == [Self.id(2)])
        #expect(shared.queues[Self.id(1)]?.closing == false)
    }

    @Test func aFullSocketWhoseClientTookAllItWasGivenIsNotStalled() {
        // Both sockets filled 50 ms ago and neither client acknowledged a byte since; but 1's
        // socket holds nothing unacknowledged (lws has not sent it more yet: a busy loop),
        // while 2's holds 4 KB its client never took.
        var shared = Self.shared([3: 0])
        for raw in 1...2 { shared.queues[Self.id(UInt64(raw))] = OutgoingQueue(limit: 1 << 20) }
        Self.fill(&shared, 1, filledAt: Self.ago(50_000_000), holding: 30_000)
        Self.fill(&shared, 2, filledAt: Self.ago(50_000_000), holding: 17_000)
        let (room, cut) = Self.makeRoom(
            10_000, sender: 3, in: &shared, budget: 40_000, unacknowledged: [1: 0, 2: 4_000])
        #expect(room)
        #expect(cut == [Self.id(2)])
    }

    @Test func theKernelsAcknowledgedCountMovesOnlyWhenThePeerReads() throws {
        let (writer, reader) = try Self.loopbackPair()
        defer {
            close(writer)
            close(reader)
        }
        let start = try #require(SocketProgress.bytesAcknowledged(writer))
        // Fill the peer's buffer and ours: the peer does not read.
        var chunk = [UInt8](repeating: 7, count: 65_536)
        while chunk.withUnsafeMutableBytes({ send(writer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
        usleep(50_000)
        let full = try #require(SocketProgress.bytesAcknowledged(writer))
        #expect(full > start)
        let unread = try #require(SocketProgress.bytesUnacknowledged(writer))
        #expect(unread > 0)  // sitting in our socket: the peer's window is closed
        usleep(100_000)
        #expect(SocketProgress.bytesAcknowledged(writer) == full)  // no reading, no progress
        var sink = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<8 { _ = sink.withUnsafeMutableBytes { recv(reader, $0.baseAddress, $0.count, 0) } }
        usleep(50_000)
        #expect(try #require(SocketProgress.bytesAcknowledged(writer)) > full)
        #expect(try #require(SocketProgress.bytesUnacknowledged(writer)) < unread)
        #expect(SocketProgress.bytesAcknowledged(-1) == nil)
        #expect(SocketProgress.bytesUnacknowledged(-1) == nil)
    }

    /// A connected TCP pair over loopback, the reading end with a small receive buffer.
    static func loopbackPair() throws -> (writer: Int32, reader: Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        try #require(bound)
        let reader = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var small: Int32 = 4_096
        setsockopt(reader, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(reader, $0, length) == 0 }
        }
        try #require(connected)
        let writer = accept(listener, nil, nil)
        try #require(writer >= 0)
        return (writer, reader)
    }

    @Test func onATieTheSenderIsNotTheOneCut() {
        for _ in 0..<20 {
            var shared = Self.shared([1: 500, 2: 500])
            var cut: [ServiceLoop.BudgetCut] = []
            #expect(
                ServiceLoop.makeRoom(for: Self.payload(100), sender: Self.id(2), in: &shared, budget: 1_000, cut: &cut))
            #expect(cut.map(\.id) == [Self.id(1)])
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
        var cut: [ServiceLoop.BudgetCut] = []
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

    @Test func aQuietTabSharingItsSessionsBroadcastIsNotCutForAStalledClient() {
        // Tabs 1 and 2 of a reading session both hold the session's 55 KB broadcast (one
        // buffer, counted once); 3 stopped reading and lws keeps 20,000 bytes of its own.
        let now = DispatchTime.now().uptimeNanoseconds
        var shared = Self.shared([4: 0])
        let broadcast = OutgoingPayload.utf8(Array(repeating: UInt8(ascii: "b"), count: 55_000))
        for raw in 1...3 { shared.queues[Self.id(UInt64(raw))] = OutgoingQueue(limit: 1 << 20) }
        for raw in 1...2 {
            _ = shared.queues[Self.id(UInt64(raw))]?.append(.message(broadcast), budget: &shared.budget)
        }
        Self.fill(&shared, 3, filledAt: now - 50_000_000, holding: 20_000)
        #expect(shared.budget.bytes == 75_000)
        var cut: [ServiceLoop.BudgetCut] = []
        #expect(
            ServiceLoop.makeRoom(for: Self.payload(30_000), sender: Self.id(4), in: &shared, budget: 100_000, cut: &cut)
        )
        #expect(cut.map(\.id) == [Self.id(3)])
    }

    @Test func aConnectionWhoseCutWouldGiveNothingBackIsPassedOver() {
        // 1 is stalled but holds only a buffer 2 holds too: cutting it frees nothing, so 3
        // (which holds bytes of its own) is cut instead.
        let now = DispatchTime.now().uptimeNanoseconds
        var shared = Self.shared([3: 400, 4: 0])
        let broadcast = OutgoingPayload.utf8(Array(repeating: UInt8(ascii: "b"), count: 2_000))
        for raw in 1...2 {
            let queue = OutgoingQueue(limit: 1 << 20)
            shared.queues[Self.id(UInt64(raw))] = queue
            _ = queue.append(.message(broadcast), budget: &shared.budget)
        }
        Self.fill(&shared, 1, filledAt: now - 5_000_000_000)
        var cut: [ServiceLoop.BudgetCut] = []
        #expect(
            ServiceLoop.makeRoom(for: Self.payload(700), sender: Self.id(4), in: &shared, budget: 3_000, cut: &cut))
        #expect(cut.map(\.id) == [Self.id(3)])
        #expect(shared.queues[Self.id(1)]?.closing == false)
    }

    @Test func whatLwsKeepsCountsAsTheConnectionsOwnWhenChoosingWhomToCut() {
        // 1 reads while full (not stalled), but lws keeps 50,000 bytes for it: it holds the most.
        var shared = Self.shared([1: 100, 2: 400, 3: 0])
        Self.fill(&shared, 1, filledAt: 7, holding: 50_000)
        let (room, cut) = Self.makeRoom(1_000, sender: 3, in: &shared, budget: 50_500, readers: [1])
        #expect(room)
        #expect(cut == [Self.id(1)])
        #expect(shared.budget.bytes == 400)
    }

    @Test func whatLwsKeepsOfAWriteIsCountedUntilTheSocketDrains() {
        var shared = Self.shared([1: 100, 2: 400])
        // 1's socket took only part of a 50,000-byte write: lws keeps the rest.
        Self.fill(&shared, 1, filledAt: 7, holding: 50_000)
        #expect(shared.budget.bytes == 50_500)
        #expect(shared.queues[Self.id(1)]?.heldBytes == 50_100)
        shared.queues[Self.id(1)]?.drained(budget: &shared.budget)
        #expect(shared.budget.bytes == 500)
        #expect(shared.queues[Self.id(1)]?.blocked == false)
        #expect(shared.queues[Self.id(1)]?.filledAt == nil)
        // A connection that closes while lws holds bytes releases them too.
        Self.fill(&shared, 2, filledAt: 9, holding: 30_000)
        #expect(shared.budget.bytes == 30_500)
        shared.queues[Self.id(2)]?.dropAll(budget: &shared.budget)
        #expect(shared.budget.bytes == 100)
    }
}
