/// How many sockets each client address may have end without becoming a WebSocket
/// connection (plain HTTP requests, refused methods, requests cut half-finished), or as one
/// within 10 s of its upgrade (a client opening and closing sessions in a loop): a token
/// bucket per address, `burst` tokens, refilled at `perSecond`. An address with no token
/// left has its new sockets closed on arrival, before libwebsockets makes anything of them.
///
/// Why: every socket libwebsockets 4.1.6 (Debian's build, with `_DEBUG`) closes costs a walk
/// over its whole connection table (`sanity_assert_no_sockfd_traces`), and the sockets one
/// burst brings are served in one turn of the loop: 6,000 `CONNECT` requests from one
/// address in 4 s, each answered 405, took a bystander's p99 from 0.6 to 5 ms (issue 33's
/// round six). A socket closed on arrival costs `accept` and `close`, nothing more.
/// WebSocket connections that stay are not charged: a fleet of kiosks behind one address
/// reconnecting at once is only bound by `maxConnectionsPerAddress`.
///
/// Pure: the caller passes the time. Bounded: at most `maxTracked` addresses are held; past
/// that the ones whose bucket is full again are forgotten, and if none is, a new address is
/// not tracked (it is let in, as before the budget).
struct SocketChurnBudget {
    /// Tokens an address starts with (sockets that may end unupgraded at once).
    let burst: Double
    /// Tokens an address gets back a second; 0 turns the budget off.
    let perSecond: Double
    /// The most addresses held at once.
    let maxTracked: Int

    private var buckets: [String: (tokens: Double, at: Double)] = [:]
    /// When a full table was last looked over for buckets full again (at most once a second).
    private var prunedAt = -Double.infinity

    /// - Parameters:
    ///   - perSecond: Sockets a second an address may have end without an upgrade; 0: no budget.
    ///   - burst: Sockets it may have end at once before that rate applies.
    ///   - maxTracked: The most addresses held at once.
    init(perSecond: Int, burst: Int, maxTracked: Int = 4_096) {
        self.perSecond = Double(max(0, perSecond))
        self.burst = Double(max(1, burst))
        self.maxTracked = max(1, maxTracked)
    }

    /// Whether the budget is on.
    var isOn: Bool { perSecond > 0 }

    /// How many addresses are held (for tests and metrics).
    var trackedCount: Int { buckets.count }

    /// Whether a new socket from `address` may stay: the address has a token left.
    func admits(_ address: String, now: Double) -> Bool {
        guard isOn, let bucket = buckets[address] else { return true }
        return tokens(of: bucket, now: now) >= 1
    }

    /// Charges `address` one token: one of its sockets ended without an upgrade.
    mutating func charge(_ address: String, now: Double) {
        guard isOn else { return }
        if let bucket = buckets[address] {
            // Into debt, down to one burst: sockets are admitted at accept and charged when
            // they end, so those admitted while the bucket still had a token and ending after
            // it ran out must still count (clamped at 0 they were lost, and 24 clients in a
            // loop got 300 sessions a second through a budget of 64).
            buckets[address] = (max(-burst, tokens(of: bucket, now: now) - 1), now)
            return
        }
        if buckets.count >= maxTracked {
            // Looked over at most once a second: addresses sprayed faster than buckets refill
            // must not make every socket's end a walk over the table.
            guard now - prunedAt >= 1 else { return }
            prunedAt = now
            buckets = buckets.filter { tokens(of: $0.value, now: now) < burst }
            guard buckets.count < maxTracked else { return }
        }
        buckets[address] = (burst - 1, now)
    }

    /// Seconds until `address` has a token again (0 when it has one).
    func secondsUntilAdmitted(_ address: String, now: Double) -> Double {
        guard isOn, let bucket = buckets[address] else { return 0 }
        let missing = 1 - tokens(of: bucket, now: now)
        return missing <= 0 ? 0 : missing / perSecond
    }

    private func tokens(of bucket: (tokens: Double, at: Double), now: Double) -> Double {
        min(burst, bucket.tokens + max(0, now - bucket.at) * perSecond)
    }
}
