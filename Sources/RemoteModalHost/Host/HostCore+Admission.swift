import Foundation
import RemoteModalLogging

/// How a `hello`'s token was judged.
enum Authorization {
    /// The host requires no token.
    case open
    /// A known token: which grant, the name it imposes, the groups it allows (`nil`: any).
    case granted(key: Int, name: String?, groups: Set<String>?)
    /// Missing or unknown.
    case refused
}

extension HostCore {
    /// Judges a `hello`'s token against `accessToken` and the token grants, comparing each
    /// in constant time (every grant is compared, so timing does not tell which matched).
    func authorize(_ token: String?) -> Authorization {
        guard configuration.accessToken != nil || !configuration.tokenGrants.isEmpty else { return .open }
        guard let token else { return .refused }
        var found: Authorization = .refused
        if let expected = configuration.accessToken, Secrets.constantTimeEquals(token, expected) {
            found = .granted(key: -1, name: nil, groups: nil)
        }
        for (index, grant) in configuration.tokenGrants.enumerated()
        where Secrets.constantTimeEquals(token, grant.token) {
            found = .granted(key: index, name: grant.name, groups: grant.groups)
        }
        return found
    }

    /// Makes room for a new session from `address`, evicting retained sessions if that
    /// is what the caps need. Returns the refusal reason when there is no room.
    func admitSession(from address: String) -> String? {
        if sessionsByAddress[address, default: 0] >= configuration.maxSessionsPerAddress {
            guard let victim = retainedOrderByAddress[address]?.candidate() else {
                retainedOrderByAddress[address] = nil
                return "too many sessions from this address"
            }
            evict(victim, because: "its address is at its session limit")
        }
        if sessions.count >= configuration.maxSessions {
            guard let victim = retainedOrder.candidate() else { return "host at session capacity" }
            evict(victim, because: "the host is at its session limit")
        }
        return nil
    }

    /// Ends the oldest retained sessions while more than `maxRetainedSessions` are kept.
    func enforceRetainedLimit() {
        while retainedCount > configuration.maxRetainedSessions, let victim = retainedOrder.candidate() {
            evict(victim, because: "more than \(configuration.maxRetainedSessions) sessions are retained")
        }
    }

    private func evict(_ session: SessionState, because reason: String) {
        logger.info("session \(session.shortID) ended early: \(reason)")
        metrics.update { $0.sessionsEvicted += 1 }
        expire(session)
    }

    /// Returns memory freed by ended sessions to the system every `interval` while
    /// sessions end (a flood's memory would otherwise stay with the process). One check of
    /// a counter per tick: nothing here walks the sessions.
    func startTrimming(every interval: Duration = .seconds(10)) {
        let ended = metrics.snapshot.sessionsExpired
        trimTimer = clock.schedule(after: interval) { [weak self] in
            guard let self else { return }
            perform {
                guard !self.stopped else { return }
                if self.metrics.snapshot.sessionsExpired != ended { self.configuration.returnFreedMemory?() }
                self.startTrimming(every: interval)
            }
        }
    }

    /// Arms the picker's stall timer for when its next file in progress loses its
    /// reservation: `uploadStallSeconds` without a chunk, or slower than
    /// `uploadMinimumBytesPerSecond` after that grace (`UploadAssembly.nextDeadline`). One
    /// timer per picker with uploads in progress, not a sweep over every session; a chunk
    /// re-arms it only when it makes the picker due sooner (a new file), and the timer,
    /// when due, drops what fell behind and re-arms for the next.
    func armStallTimer(_ presentation: Presentation) {
        guard !presentation.finished, let uploads = presentation.uploads,
            let due = uploads.nextDeadline(
                stall: configuration.uploadStallSeconds, minimumRate: configuration.uploadMinimumBytesPerSecond)
        else { return }
        if presentation.stallTimer != nil, let armed = presentation.stallTimerDue, armed <= due { return }
        presentation.stallTimer?.dispose()
        presentation.stallTimerDue = due
        let delay = max(0, due - clock.now.timeIntervalSince1970)
        presentation.stallTimer = clock.schedule(after: .microseconds(Int64((delay * 1e6).rounded(.up)))) {
            [weak self, weak presentation] in
            guard let self, let presentation else { return }
            perform {
                presentation.stallTimer = nil
                presentation.stallTimerDue = nil
                guard !self.stopped, !presentation.finished else { return }
                // NB: at least `due`: a clock coarser than the fraction of a second the rate
                // gives must not fire, drop nothing, and re-arm for the same instant for ever.
                self.dropStalledUploads(of: presentation, now: max(due, self.clock.now.timeIntervalSince1970))
                self.armStallTimer(presentation)
            }
        }
    }

    /// Drops the picker's uploads that stopped moving (`uploadStallSeconds`) or trickle
    /// (`uploadMinimumBytesPerSecond`), releasing their budget.
    func dropStalledUploads(of presentation: Presentation, now: Double) {
        guard
            let dropped = presentation.uploads?.dropStalled(
                now: now, stall: configuration.uploadStallSeconds,
                minimumRate: configuration.uploadMinimumBytesPerSecond), !dropped.isEmpty
        else { return }
        let from = dropped.addresses.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(
            separator: ", ")
        if dropped.stalled > 0 {
            logger.info(
                "\(dropped.stalled) stalled upload(s) dropped after \(Int(configuration.uploadStallSeconds)) s"
                    + " without a chunk, from \(from)")
        }
        if dropped.unanswered > 0 {
            logger.info(
                "\(dropped.unanswered) uploaded file(s) dropped: no result came within"
                    + " \(Int(configuration.uploadStallSeconds)) s of their last byte, from \(from)")
        }
        if dropped.slow > 0 {
            logger.info(
                "\(dropped.slow) upload(s) dropped for moving slower than"
                    + " \(Int(configuration.uploadMinimumBytesPerSecond)) bytes/s, from \(from)")
        }
        metrics.update {
            $0.uploadsDropped += dropped.stalled + dropped.slow + dropped.unanswered
            $0.uploadMemoryBytes = uploadBudget.memoryInUse
            $0.uploadSpoolBytes = uploadBudget.spooled
        }
    }
}
