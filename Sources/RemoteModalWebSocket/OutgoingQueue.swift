import Foundation
import RemoteModalTransport

/// A message's payload as it waits to be written.
enum OutgoingPayload: Sendable {
    case text(String)
    /// Text already encoded as UTF-8 (the host's own messages, which it writes as bytes:
    /// no String is made, validated and copied for each).
    case utf8([UInt8])
    case binary(Data)

    init(_ message: WebSocketMessage) {
        switch message {
        case .text(let text): self = .text(text)
        case .binary(let data): self = .binary(data)
        }
    }

    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .utf8(let bytes): bytes.count
        case .binary(let data): data.count
        }
    }

    /// Calls `body` with the payload's bytes and whether they are text.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer, _ isText: Bool) -> Result) -> Result {
        switch self {
        case .text(let text):
            var text = text
            return text.withUTF8 { body(UnsafeRawBufferPointer($0), true) }
        case .utf8(let bytes):
            return bytes.withUnsafeBytes { body($0, true) }
        case .binary(let data):
            return data.withUnsafeBytes { body($0, false) }
        }
    }
}

/// One frame waiting to be written, or the request to close after the frames before it.
enum OutgoingItem: Sendable {
    case message(OutgoingPayload)
    case close(CloseCode, String)
}

/// A connection's frames waiting for `WRITEABLE`, with a byte limit so a client that
/// stops reading cannot make the host buffer without bound.
///
/// A class so that a send finds it with one dictionary lookup and changes it in place
/// (as a struct in the dictionary, each access was a lookup of its own). Used only under
/// the service loop's `shared` lock.
final class OutgoingQueue {
    /// Whether `append` accepted the item.
    enum AppendResult: Equatable {
        case queued
        /// The queue passed its limit: the frames were dropped and a 1008 close queued.
        case overflow
        /// The connection is already closing; the item was dropped.
        case closing
    }

    let limit: Int
    /// The connection's lws handle, for a send on the service thread to ask for
    /// `WRITEABLE` without another lookup. Used on the service thread only; the queue is
    /// removed when the connection closes.
    let wsi: OpaquePointer?
    /// Bytes of this connection's own queued frames (each copy counted: the per-connection
    /// limit is about what one client holds up).
    private(set) var bytes = 0
    private var items: [OutgoingItem] = []
    private var head = 0
    private(set) var closing = false
    /// Bytes handed to lws that its socket did not take, at most: lws keeps a copy of the
    /// unsent rest of a write, which the budget counts until the socket drains.
    private(set) var heldByLibrary = 0

    /// Bytes of queued payloads the budget counts once however many queues hold them (a
    /// session's broadcasts).
    private(set) var sharedBytes = 0

    /// What this connection holds up: its queue and what lws keeps for it.
    var heldBytes: Int { bytes + heldByLibrary }

    /// What it holds that no other connection shares: its own frames and what lws keeps.
    var ownBytes: Int { bytes - sharedBytes + heldByLibrary }

    /// What cutting it would give back to the budget now.
    func freeable(in budget: OutgoingBudget) -> Int {
        var total = heldByLibrary
        for item in items[head...] {
            if case .message(let message) = item { total += budget.freed(byDropping: message) }
        }
        return total
    }

    /// The connection's socket (-1: none known), to ask the kernel what its client took.
    let socket: Int32
    /// What the peer had acknowledged when the socket filled (`SocketProgress`).
    private(set) var acknowledgedWhenFilled: UInt64?
    /// When (monotonic nanoseconds) the socket filled, if it is full: lws holds bytes of ours
    /// it could not send. Set and cleared by the service thread; read when the host-wide
    /// budget must cut.
    private(set) var filledAt: UInt64?

    /// Whether the connection's socket is full.
    var blocked: Bool { filledAt != nil }

    /// Whether the client took anything since its socket filled: a full socket whose client
    /// reads, however slowly. Asks the kernel (a system call); false when it cannot say.
    func readsWhileFull() -> Bool {
        guard blocked, let before = acknowledgedWhenFilled,
            let now = SocketProgress.bytesAcknowledged(socket)
        else { return false }
        return now > before
    }

    /// The socket filled at `now` with at most `bytes` of a write left with lws; its peer had
    /// then acknowledged `acknowledged` bytes.
    func filled(at now: UInt64, holding bytes: Int, acknowledged: UInt64?, budget: inout OutgoingBudget) {
        if !blocked {
            acknowledgedWhenFilled = acknowledged
            filledAt = now
        }
        budget.chargeUnshared(bytes - heldByLibrary)
        heldByLibrary = bytes
    }

    /// The socket took everything lws held.
    func drained(budget: inout OutgoingBudget) {
        filledAt = nil
        budget.chargeUnshared(-heldByLibrary)
        heldByLibrary = 0
    }

    /// - Parameter socket: The connection's socket descriptor, or -1.
    init(limit: Int, wsi: OpaquePointer? = nil, socket: Int32 = -1) {
        self.limit = limit
        self.wsi = wsi
        self.socket = socket
    }

    var isEmpty: Bool { head >= items.count }

    func append(_ item: OutgoingItem, budget: inout OutgoingBudget) -> AppendResult {
        guard !closing else { return .closing }
        switch item {
        case .message(let message):
            if bytes + message.byteCount > limit {
                return overflow(reason: "outgoing queue limit", budget: &budget)
            }
            bytes += message.byteCount
            if budget.charge(message) { sharedBytes += message.byteCount }
        case .close:
            closing = true
        }
        items.append(item)
        return .queued
    }

    /// Drops the queued frames and queues a 1008 close with `reason` (this connection's
    /// limit, or the host-wide outgoing budget, is spent).
    ///
    /// What lws keeps for it is released from the budget too, though lws frees it only when
    /// the close is done (at most the cut timeout, 2 s, on a socket that takes nothing):
    /// counted until then, it made the budget cut clients that read, one after another.
    func overflow(reason: String, budget: inout OutgoingBudget) -> AppendResult {
        guard !closing else { return .closing }
        dropAll(budget: &budget)
        items = [.close(.policyViolation, reason)]
        closing = true
        return .overflow
    }

    /// Drops every queued item, releasing its bytes from the budget (the connection closed).
    func dropAll(budget: inout OutgoingBudget) {
        budget.chargeUnshared(-heldByLibrary)
        heldByLibrary = 0
        for item in items[head...] {
            if case .message(let message) = item { budget.release(message) }
        }
        items.removeAll()
        head = 0
        bytes = 0
        sharedBytes = 0
    }

    /// The next item, left in the queue.
    func peekFirst() -> OutgoingItem? {
        head < items.count ? items[head] : nil
    }

    func popFirst(budget: inout OutgoingBudget) -> OutgoingItem? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: items.count <= 64)
            head = 0
        }
        if case .message(let message) = item {
            bytes -= message.byteCount
            if budget.release(message) { sharedBytes -= message.byteCount }
        }
        return item
    }
}
