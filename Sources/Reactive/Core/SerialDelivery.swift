import Locking
import Synchronization

/// Delivers items one at a time, in the order they were enqueued, without holding a lock
/// while delivering.
///
/// The first caller to find the queue idle becomes the deliverer and drains every item
/// other threads (or re-entrant calls) enqueue meanwhile; the others return at once. This
/// keeps observers free of concurrent and interleaved calls and makes re-entrancy safe.
final class SerialDelivery<Item: Sendable>: Sendable {
    private struct State {
        var pending: [Item] = []
        var head = 0
        var busy = false
    }

    private let state = Locked(State())

    init() {}

    /// Delivers `item` now, or queues it for the thread already delivering.
    ///
    /// Every caller of one instance must pass an equivalent `deliver`: queued items are
    /// delivered with the closure of whichever caller is draining.
    func enqueue(_ item: Item, _ deliver: (Item) -> Void) {
        let isDeliverer = state.withLock { state in
            if state.busy {
                state.pending.append(item)
                return false
            }
            state.busy = true
            return true
        }
        guard isDeliverer else { return }
        var next: Item? = item
        while let current = next {
            deliver(current)
            next = state.withLock { state in
                guard state.head < state.pending.count else {
                    state.pending.removeAll(keepingCapacity: true)
                    state.head = 0
                    state.busy = false
                    return nil
                }
                defer { state.head += 1 }
                return state.pending[state.head]
            }
        }
    }
}
