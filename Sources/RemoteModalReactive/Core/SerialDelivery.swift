import RemoteModalLocking
import Synchronization

/// Delivers items one at a time, in the order they were enqueued, without holding a lock
/// while delivering.
///
/// NB: no `private` members: cross-module optimization cannot make private code available
/// to the modules that use this type, which then call it unspecialized, looking up its
/// generic types at run time (issue 31).
///
/// The first caller to find the queue idle becomes the deliverer and drains every item
/// other threads (or re-entrant calls) enqueue meanwhile; the others return at once. This
/// keeps observers free of concurrent and interleaved calls and makes re-entrancy safe.
///
/// The uncontended path (the common one) takes no lock: one compare-and-swap claims the
/// deliverer role, and two atomic loads confirm nothing was queued meanwhile.
final class SerialDelivery<Item: Sendable>: Sendable {
    struct Queue {
        var items: [Item] = []
        var head = 0
    }

    let busy = Atomic<Bool>(false)
    let queued = Atomic<Int>(0)
    let queue = Locked(Queue())

    init() {}

    /// Delivers `item` now, or queues it for the thread already delivering.
    ///
    /// Every caller of one instance must pass an equivalent `deliver`: queued items are
    /// delivered with the closure of whichever caller is draining.
    func enqueue(_ item: Item, _ deliver: (Item) -> Void) {
        if busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            if queued.load(ordering: .acquiring) == 0 {
                deliver(item)
            } else {
                // Items queued before this one go first.
                append(item)
            }
            drain(deliver)
            return
        }
        append(item)
        // The deliverer may have finished between our failed claim and the append.
        if busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            drain(deliver)
        }
    }

    func append(_ item: Item) {
        queue.withLock { $0.items.append(item) }
        queued.add(1, ordering: .releasing)
    }

    /// Runs while holding the deliverer role; gives it up only when nothing is queued.
    func drain(_ deliver: (Item) -> Void) {
        while true {
            while queued.load(ordering: .acquiring) > 0 {
                let next: Item? = queue.withLock { queue in
                    guard queue.head < queue.items.count else { return nil }
                    defer {
                        queue.head += 1
                        if queue.head == queue.items.count {
                            queue.items.removeAll(keepingCapacity: true)
                            queue.head = 0
                        }
                    }
                    return queue.items[queue.head]
                }
                guard let next else { break }
                queued.subtract(1, ordering: .releasing)
                deliver(next)
            }
            busy.store(false, ordering: .releasing)
            // Something queued after our last look: take the role back, unless another
            // thread already did.
            guard queued.load(ordering: .acquiring) > 0,
                busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
            else { return }
        }
    }
}
