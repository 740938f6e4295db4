/// A token bucket: `rate` tokens a second, at most `burst` saved up. Pure; the caller
/// passes the time.
struct TokenBucket {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: Double?

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Takes one token at time `now` (seconds); `false` when none is left.
    mutating func take(now: Double) -> Bool {
        if let last { tokens = min(burst, tokens + max(0, now - last) * rate) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
