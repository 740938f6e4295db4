/// The host-wide count of bytes waiting to be sent, which `maxOutgoingBytes` bounds.
///
/// A message the host sends to several connections (a session's broadcast) is one buffer
/// that their queues share, so it is counted once: the budget bounds memory, and twenty
/// references to one buffer are not twenty buffers. Counting each copy let one big
/// broadcast to a session's stalled connections fill the budget at once and cut the
/// session's own reader. Payloads under `sharedThreshold` bytes are counted per copy:
/// they are small, and a lookup per message would cost more than they weigh.
struct OutgoingBudget {
    /// The smallest payload counted once however many queues hold it.
    static var sharedThreshold: Int { 1024 }

    /// Bytes counted against the budget now.
    private(set) var bytes = 0
    /// For each shared buffer (by address): how many queued items refer to it.
    private var holders: [UInt: Int] = [:]

    init() {}

    /// What queuing `payload` once more would add to `bytes`: nothing for a shared buffer
    /// another queue already holds.
    func cost(of payload: OutgoingPayload) -> Int {
        guard let key = Self.sharedKey(payload) else { return payload.byteCount }
        return holders[key] == nil ? payload.byteCount : 0
    }

    /// Counts one more queued item holding `payload`; returns whether it is a shared buffer
    /// (counted once however many queues hold it).
    @discardableResult
    mutating func charge(_ payload: OutgoingPayload) -> Bool {
        guard let key = Self.sharedKey(payload) else {
            bytes += payload.byteCount
            return false
        }
        let count = holders[key, default: 0]
        if count == 0 { bytes += payload.byteCount }
        holders[key] = count + 1
        return true
    }

    /// Adds (or, negative, removes) bytes that no queue shares: what lws keeps of a write
    /// its socket did not take.
    mutating func chargeUnshared(_ delta: Int) {
        bytes += delta
    }

    /// What dropping one queued item holding `payload` would give back: nothing while
    /// another queue still holds the same buffer.
    func freed(byDropping payload: OutgoingPayload) -> Int {
        guard let key = Self.sharedKey(payload) else { return payload.byteCount }
        return holders[key] == 1 ? payload.byteCount : 0
    }

    /// Counts one queued item holding `payload` as gone (written or dropped); returns whether
    /// it is a shared buffer.
    @discardableResult
    mutating func release(_ payload: OutgoingPayload) -> Bool {
        guard let key = Self.sharedKey(payload) else {
            bytes -= payload.byteCount
            return false
        }
        guard let count = holders[key] else {
            assertionFailure("released a shared payload that was never charged")
            return true
        }
        if count > 1 {
            holders[key] = count - 1
        } else {
            holders[key] = nil
            bytes -= payload.byteCount
        }
        return true
    }

    /// The address of a payload's buffer when it is big enough to count once. Only the
    /// host's own messages (`.utf8`) are broadcast as one buffer; an array's storage does
    /// not move while a queue holds the array, and its count is dropped before it is freed.
    private static func sharedKey(_ payload: OutgoingPayload) -> UInt? {
        guard case .utf8(let bytes) = payload, bytes.count >= sharedThreshold else { return nil }
        return bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }
}
