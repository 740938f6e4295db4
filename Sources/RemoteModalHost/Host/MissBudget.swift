/// Wrong tries per client address: at most `limit` within a `window` of seconds, then the
/// address is locked out for `lockout` seconds. Pure (the caller passes the time) and bounded:
/// past `maxAddresses` the quiet addresses are forgotten, and if every one is busy the
/// oldest window goes.
struct MissBudget: Sendable {
    let limit: Int
    let window: Double
    let lockout: Double
    /// The most addresses remembered at once.
    let maxAddresses: Int

    private struct Entry {
        var windowStart: Double
        var misses: Int
        var lockedUntil: Double?
    }

    private var entries: [String: Entry] = [:]

    init(limit: Int, window: Double, lockout: Double, maxAddresses: Int = 16_384) {
        self.limit = limit
        self.window = window
        self.lockout = lockout
        self.maxAddresses = maxAddresses
    }

    /// The seconds left of `address`'s lockout, or `nil` when it is not locked out.
    func lockedOut(_ address: String, now: Double) -> Double? {
        guard limit > 0, let until = entries[address]?.lockedUntil, until > now else { return nil }
        return until - now
    }

    /// Counts a wrong try; `true` when it locks the address out (once per lockout).
    mutating func miss(_ address: String, now: Double) -> Bool {
        guard limit > 0 else { return false }
        var entry = entries[address] ?? Entry(windowStart: now, misses: 0)
        if let until = entry.lockedUntil, until > now { return false }
        if entry.lockedUntil != nil || now - entry.windowStart >= window {
            entry = Entry(windowStart: now, misses: 0)
        }
        entry.misses += 1
        let locks = entry.misses >= limit
        if locks { entry.lockedUntil = now + lockout }
        if entries[address] == nil, entries.count >= maxAddresses { forgetQuiet(now: now) }
        entries[address] = entry
        return locks
    }

    /// How many addresses are remembered.
    var count: Int { entries.count }

    private mutating func forgetQuiet(now: Double) {
        entries = entries.filter { _, entry in
            if let until = entry.lockedUntil { return until > now }
            return now - entry.windowStart < window
        }
        if entries.count >= maxAddresses, let oldest = entries.min(by: { $0.value.windowStart < $1.value.windowStart })
        {
            entries[oldest.key] = nil
        }
    }
}
