import Foundation
import Transport

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
    private(set) var bytes = 0
    private var items: [OutgoingItem] = []
    private var head = 0
    private(set) var closing = false

    init(limit: Int, wsi: OpaquePointer? = nil) {
        self.limit = limit
        self.wsi = wsi
    }

    var isEmpty: Bool { head >= items.count }

    func append(_ item: OutgoingItem) -> AppendResult {
        guard !closing else { return .closing }
        switch item {
        case .message(let message):
            if bytes + message.byteCount > limit {
                items = [.close(.policyViolation, "outgoing queue limit")]
                head = 0
                bytes = 0
                closing = true
                return .overflow
            }
            bytes += message.byteCount
        case .close:
            closing = true
        }
        items.append(item)
        return .queued
    }

    /// Drops the queued frames and queues a 1008 close with `reason` (the host-wide
    /// outgoing budget is spent, and this connection is the one asking for more).
    func overflow(reason: String) -> AppendResult {
        guard !closing else { return .closing }
        items = [.close(.policyViolation, reason)]
        head = 0
        bytes = 0
        closing = true
        return .overflow
    }

    /// The next item, left in the queue.
    func peekFirst() -> OutgoingItem? {
        head < items.count ? items[head] : nil
    }

    func popFirst() -> OutgoingItem? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: items.count <= 64)
            head = 0
        }
        if case .message(let message) = item { bytes -= message.byteCount }
        return item
    }
}
