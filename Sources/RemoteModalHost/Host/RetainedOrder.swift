/// Retained sessions (kept for resume, no connection) in the order their last connection
/// closed, so that admission finds the session to end first without walking every session.
///
/// Entries are appended when a session loses its last connection and go stale when it
/// resumes, ends or disconnects again (its `disconnectOrder` then differs): stale entries
/// are skipped at the front and compacted away once they outnumber the live ones, so the
/// queue stays within about twice the retained sessions it names.
struct RetainedOrder {
    private var entries: [(order: Int, session: SessionState)] = []
    private var head = 0
    private var compactAt = 32

    /// Whether no entry is left at all (the queue can be dropped).
    var isEmpty: Bool { head == entries.count }

    /// Adds a session that just lost its last connection (`disconnectOrder` set).
    mutating func append(_ session: SessionState) {
        guard let order = session.disconnectOrder else { return }
        entries.append((order, session))
        if entries.count - head >= compactAt { compact() }
    }

    /// The retained session to end first: one with nothing pending before one with
    /// something pending, then the longest disconnected.
    ///
    /// The walk stops at the first live entry with nothing pending, which is the front in
    /// the common case; it reaches further only past sessions that have modals pending.
    mutating func candidate() -> SessionState? {
        while head < entries.count, !Self.isLive(entries[head]) { head += 1 }
        var firstPending: SessionState?
        for index in head..<entries.count where Self.isLive(entries[index]) {
            let session = entries[index].session
            if session.pending.isEmpty { return session }
            if firstPending == nil { firstPending = session }
        }
        return firstPending
    }

    private static func isLive(_ entry: (order: Int, session: SessionState)) -> Bool {
        entry.session.alive && entry.session.disconnectOrder == entry.order
    }

    private mutating func compact() {
        entries = entries[head...].filter(Self.isLive)
        head = 0
        compactAt = max(32, entries.count * 2)
    }
}
