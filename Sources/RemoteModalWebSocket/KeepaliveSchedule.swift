import RemoteModalTransport

/// When the server next looks at each connection for silence: a wheel of one-second slots,
/// so that a tick costs only the connections due in it and a new connection one append.
///
/// NB: this replaces lws's own keepalive (its `retry_and_idle_policy` "validity" timers).
/// lws 4.1.6 keeps every timer of a thread in one sorted list and inserts by walking it from
/// the head; each connection's validity timer, set at its upgrade and at every pong, is due
/// later than all the others, so every upgrade walked the whole list: with 15,000 idle
/// connections held, `lws_dll2_add_sorted` was 48% of the host's CPU while new ones arrived
/// (docs/benchmarks.md). Here an upgrade is an append and a tick touches only what is due.
///
/// The rule is the one docs/protocol.md states: a ping after `pingAfter` seconds with nothing
/// heard (any frame counts, a pong too), another every `pingAfter` seconds of silence after
/// it, and the connection dropped after `closeAfter` seconds of silence.
///
/// Ticks are whole seconds, and a frame heard in tick `h` may have come at its very end: the
/// silence at tick `t` is counted as `t - h - 1`, so that nothing is pinged or dropped early
/// (each comes up to two seconds late).
struct KeepaliveSchedule {
    /// What to do with a connection that is due.
    enum Action: Equatable {
        /// Send a ping now.
        case ping
        /// Nothing heard for `closeAfter` seconds: drop it.
        case close
    }

    /// What the schedule needs to know of a connection when it is due.
    struct Liveness {
        /// The tick at which a frame last came from it (its upgrade, at first).
        var heard: UInt32
        /// The tick of the last ping sent to it, if any.
        var pinged: UInt32?
    }

    let pingAfter: UInt32
    let closeAfter: UInt32
    /// Slot `t % slots.count` holds the connections due at tick `t`: no connection is ever
    /// scheduled more than `pingAfter + 1` ticks ahead, so one slot never mixes two due ticks.
    private var slots: [[ConnectionID]]
    /// The last tick processed.
    private(set) var tick: UInt32 = 0

    /// - Parameters:
    ///   - pingAfter: Seconds of silence before a ping (at least 1).
    ///   - closeAfter: Seconds of silence before the connection is dropped (more than
    ///     `pingAfter`).
    init(pingAfter: Int, closeAfter: Int) {
        self.pingAfter = UInt32(clamping: max(1, pingAfter))
        self.closeAfter = max(self.pingAfter + 1, UInt32(clamping: closeAfter))
        slots = Array(repeating: [], count: Int(self.pingAfter) + 2)
    }

    /// Looks at `id` when it may first need a ping (a connection just opened, heard at
    /// the current tick).
    mutating func add(_ id: ConnectionID) {
        schedule(id, at: tick &+ pingAfter &+ 1)
    }

    private mutating func schedule(_ id: ConnectionID, at due: UInt32) {
        slots[Int(due % UInt32(slots.count))].append(id)
    }

    /// The connections of the tick being processed, when a call's `limit` stopped short of
    /// them all, and the next one to look at.
    private var due: [ConnectionID] = []
    private var dueNext = 0

    /// Due connections wait for the next call (one whose `limit` ran out).
    var hasDueConnections: Bool { dueNext < due.count }

    /// How many connections the tick being processed held when it came due (the pacing's
    /// measure of a batch), 0 when none wait.
    var dueInTick: Int { hasDueConnections ? due.count : 0 }

    /// Processes every tick after the last one up to `now` (several when the loop was busy
    /// for more than a second), at most `limit` connections in this call: the rest of a
    /// tick's are kept for the next (``hasDueConnections``), so that a tick with thousands
    /// due does not hold the loop for milliseconds at once. `liveness` answers for a due
    /// connection, `nil` when it has gone (it is then forgotten); `act` is called for each
    /// ping or close, after the connection's next look is scheduled (a ping counts as sent
    /// in the tick it was due in).
    mutating func advance(
        to now: UInt32, limit: Int = .max, liveness: (ConnectionID) -> Liveness?,
        act: (ConnectionID, Action) -> Void
    ) {
        var budget = limit
        while true {
            while dueNext < due.count, budget > 0 {
                let id = due[dueNext]
                dueNext += 1
                budget -= 1
                guard let state = liveness(id) else { continue }
                switch next(for: state, at: tick) {
                case .look(let at):
                    schedule(id, at: at)
                case .ping(let lookAt):
                    schedule(id, at: lookAt)
                    act(id, .ping)
                case .close:
                    act(id, .close)
                }
            }
            if dueNext < due.count { return }
            guard tick != now else { return }
            tick &+= 1
            let index = Int(tick % UInt32(slots.count))
            guard !slots[index].isEmpty else { continue }
            // The emptied list's storage goes back to the slot for its next use.
            due.removeAll(keepingCapacity: true)
            dueNext = 0
            swap(&due, &slots[index])
        }
    }

    private enum Step: Equatable {
        case look(at: UInt32)
        case ping(lookAt: UInt32)
        case close
    }

    /// What is due for a connection in `state` at tick `now`. Every tick returned is after
    /// `now` and at most `pingAfter + 1` ahead.
    private func next(for state: Liveness, at now: UInt32) -> Step {
        // Ticks since the one heard in (a frame of this very tick is not ahead of `now`
        // by much: a difference past half the range is one from the future, counted as 0).
        let sinceHeard = now &- state.heard
        // At least this many whole seconds of silence (see the type's note on ticks).
        let silent = sinceHeard == 0 || sinceHeard > UInt32.max / 2 ? 0 : sinceHeard - 1
        if silent >= closeAfter { return .close }
        let closeAt = state.heard &+ closeAfter &+ 1
        if silent < pingAfter { return .look(at: state.heard &+ pingAfter &+ 1) }
        if let pinged = state.pinged, pinged &- state.heard <= sinceHeard, now &- pinged < pingAfter {
            // A ping since the last frame, less than `pingAfter` ago: wait for its pong.
            return .look(at: earlier(pinged &+ pingAfter, closeAt, now: now))
        }
        return .ping(lookAt: earlier(now &+ pingAfter, closeAt, now: now))
    }

    /// The earlier of two ticks ahead of `now` (ticks wrap).
    private func earlier(_ a: UInt32, _ b: UInt32, now: UInt32) -> UInt32 {
        (a &- now) <= (b &- now) ? a : b
    }
}
