import Dispatch
import RemoteModalProtocol
import RemoteModalTransport

/// Connections whose `hello` waits for a later loop turn, served round robin by client
/// address: an address with a hundred waiting takes one turn's share, not a hundred, before
/// another address's one is served.
struct HelloQueue {
    private var byAddress: [String: [ConnectionID]] = [:]
    private var addresses: [String] = []
    private var next = 0
    /// Hellos waiting, across addresses.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ id: ConnectionID, from address: String) {
        if byAddress[address] == nil { addresses.append(address) }
        byAddress[address, default: []].append(id)
        count += 1
    }

    /// The next address's oldest waiting connection.
    mutating func popNext() -> ConnectionID? {
        guard !addresses.isEmpty else { return nil }
        if next >= addresses.count { next = 0 }
        let address = addresses[next]
        // In place: a copy out of the dictionary would copy the address's whole queue.
        guard let id = byAddress[address]?.removeFirst() else { return nil }
        count -= 1
        if byAddress[address]?.isEmpty == true {
            byAddress[address] = nil
            addresses.remove(at: next)
        } else {
            next += 1
        }
        return id
    }
}

extension HostCore {
    /// The most messages a client may send after its `hello` while the hello waits for a
    /// turn; past it the connection is told it is rate limited (the message is dropped).
    static let maxHeldMessages = 32

    /// Handles a `hello` now when this turn has time left for hellos
    /// (`helloMicrosecondsPerTurn`) and none is waiting; otherwise queues it for a later
    /// turn. A session's creation runs its flow (the demo's: about 150 µs), so a burst of
    /// them in one turn would delay every other client's message by all of them.
    /// `helloMicrosecondsPerTurn` in nanoseconds (0: no bound).
    private var helloBudget: UInt64 { UInt64(configuration.helloMicrosecondsPerTurn) * 1_000 }

    func admitOrQueue(_ connection: ConnectionState, _ hello: Hello) -> ProtocolError? {
        let budget = helloBudget
        guard budget > 0 else { return acceptHello(connection, hello) }
        if helloTurn != executor.turn {
            helloTurn = executor.turn
            helloNanosecondsThisTurn = 0
        }
        if helloQueue.isEmpty, helloNanosecondsThisTurn < budget {
            return timedAcceptHello(connection, hello)
        }
        connection.queuedHello = hello
        // Waiting for a turn is not the client's delay: its hello arrived in time.
        connection.helloTimer?.dispose()
        connection.helloTimer = nil
        helloQueue.append(connection.id, from: connection.info.clientAddress)
        metrics.update {
            $0.hellosDeferred += 1
            $0.hellosWaiting = helloQueue.count
        }
        scheduleHelloTurn()
        return nil
    }

    /// Keeps a message that came after a waiting `hello`, to be handled after it.
    func hold(_ message: ClientMessage, behindHelloOf connection: ConnectionState) {
        guard connection.heldMessages.count < Self.maxHeldMessages else {
            reject(
                connection,
                ProtocolError(.rateLimited, "more than \(Self.maxHeldMessages) messages before the welcome")
                    .concerning(message.modalID))
            return
        }
        connection.heldMessages.append(message)
    }

    private func timedAcceptHello(_ connection: ConnectionState, _ hello: Hello) -> ProtocolError? {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { helloNanosecondsThisTurn += DispatchTime.now().uptimeNanoseconds &- start }
        return acceptHello(connection, hello)
    }

    private func scheduleHelloTurn() {
        guard !helloTurnScheduled else { return }
        helloTurnScheduled = true
        executor.executeAfterNextPoll { [weak self] in
            guard let self else { return }
            perform { self.serveQueuedHellos() }
        }
    }

    /// One turn's share of the waiting hellos, then the next turn is asked for if any wait.
    private func serveQueuedHellos() {
        helloTurnScheduled = false
        guard !stopped else { return }
        let budget = helloBudget
        helloTurn = executor.turn
        helloNanosecondsThisTurn = 0
        while budget == 0 || helloNanosecondsThisTurn < budget, let id = helloQueue.popNext() {
            // A connection that closed while it waited is gone from `connections`.
            guard let connection = connections[id], let hello = connection.queuedHello else { continue }
            connection.queuedHello = nil
            let held = connection.heldMessages
            connection.heldMessages = []
            guard case .awaitingHello = connection.phase else { continue }
            if let outcome = timedAcceptHello(connection, hello) {
                reject(connection, outcome)
            } else {
                connection.consecutiveErrors = 0
            }
            for message in held {
                if case .closing = connection.phase { break }
                dispatch(message, on: connection)
            }
        }
        metrics.update { $0.hellosWaiting = helloQueue.count }
        if !helloQueue.isEmpty { scheduleHelloTurn() }
    }
}
