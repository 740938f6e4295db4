import RemoteModalProtocol

/// Paces one connection's uploads by bytes: a token bucket that may go into debt, and
/// says when the acknowledgement of a chunk may be sent. A client that keeps at most
/// `uploadWindow` chunks unacknowledged is thereby slowed to `rate` without ever being
/// refused. Pure; the caller passes the time.
struct UploadPacer {
    /// Bytes a second.
    let rate: Double
    /// Bytes that may pass at once after a quiet spell.
    let burst: Double
    private var tokens: Double
    private var last: Double?

    /// Creates a pacer.
    /// - Parameters:
    ///   - rate: Bytes a second (at least 1).
    ///   - burst: Bytes that may pass at once.
    init(rate: Double, burst: Double) {
        self.rate = max(1, rate)
        self.burst = max(0, burst)
        tokens = self.burst
    }

    /// Spends `bytes` at time `now` (seconds).
    /// - Returns: The time at which the chunk's acknowledgement may be sent (`now` when
    ///   the budget covers it).
    mutating func spend(_ bytes: Int, now: Double) -> Double {
        if let last { tokens = min(burst, tokens + max(0, now - last) * rate) }
        last = now
        tokens -= Double(bytes)
        return tokens >= 0 ? now : now + -tokens / rate
    }
}

/// An upload acknowledgement waiting for the pacer.
struct HeldAck {
    /// When it may be sent (seconds).
    let due: Double
    /// The session whose `seq` it takes when sent.
    let session: SessionState
    /// The modal id.
    let id: String
    /// The file index.
    let file: Int
    /// The contiguous bytes held when the chunk was accepted.
    let received: Int
}
