import RemoteModalClient
import RemoteModalProtocol

/// The top line and the notices: words said on top, the fresh notice, a tap's wait.
extension KioskModel {
    /// Moves the model's clock on without an event (a redraw once a check window ends).
    /// - Parameter now: The client's clock.
    public mutating func tick(now: Double) {
        seenAt = max(seenAt, now)
        if let retry {
            let left = max(0, retry.due - seenAt)
            connectionDetail =
                Self.words(
                    for: .reconnecting(attempt: retry.attempt, retryIn: left, why: retry.why), address: address,
                    everConnected: welcomed
                ).1
        }
        // Words said on top go to the notices after a while (a bounded top line).
        if bannerNotice != nil, seenAt - bannerSince >= Self.bannerLifetime { clearBanner() }
        if freshSerial != nil, seenAt - freshSince >= Self.bannerLifetime { freshSerial = nil }
        for index in notices.indices {
            if let due = notices[index].forgetAt, seenAt >= due {
                notices[index].text = notices[index].forgotten ?? ""
                notices[index].forgetAt = nil
                notices[index].forgotten = nil
            }
        }
        expireKeptTaps()
        notices.removeAll { seenAt - $0.at >= Self.noticeLifetime }
        if let waiting = waitingTap, seenAt - waiting.since >= Self.tapWaitLimit {
            // Still connected, so the host answers its heartbeat: it just did nothing visible.
            waitingTap = nil
            if banner == waiting.words {
                banner =
                    "\u{201C}\(waiting.title)\u{201D} got no answer from the host yet. Tap it again if nothing opens."
            }
        }
    }

    /// Taps kept longer than `keptTapLifetime` are dropped and said so: a dialog opening
    /// minutes after the tap would be for whoever stands at the kiosk then.
    private mutating func expireKeptTaps() {
        let expired = keptTaps.filter { seenAt - $0.at >= keptTapLifetime }
        guard !expired.isEmpty else { return }
        keptTaps.removeAll { seenAt - $0.at >= keptTapLifetime }
        let titles = Self.quoted(expired.map(\.title))
        say(
            .error,
            "\(titles) \(Self.wasOrWere(titles)) not sent: the host was away for more than "
                + "\(Self.duration(keptTapLifetime)). Tap again once the host is back.")
    }

    /// When the top line changes by itself next (`tick` past it): the words on top kept as a
    /// notice go to the notices, the fresh notice goes to the list, a tap's wait ends.
    public var bannerExpiry: Double? {
        let due = [
            bannerNotice == nil ? nil : bannerSince + Self.bannerLifetime,
            freshSerial == nil ? nil : freshSince + Self.bannerLifetime,
            waitingTap.map { $0.since + Self.tapWaitLimit },
            keptTaps.map { $0.at + keptTapLifetime }.min(),
            notices.map { $0.at + Self.noticeLifetime }.min(),
            notices.compactMap(\.forgetAt).min(),
            retry.flatMap { retry -> Double? in
                // The countdown's next whole second, then "trying again now".
                let left = retry.due - seenAt
                guard left > 0 else { return nil }
                return retry.due - (left.rounded(.up) - 1)
            },
        ]
        return due.compactMap { $0 }.min()
    }

    /// The notice on the top line, if one is fresh.
    public var freshNotice: Notice? { freshSerial.flatMap { serial in notices.last { $0.serial == serial } } }

    /// Anything the host sent answers a tap that waits for it (a dialog, the controls, a
    /// notice, even one about something else: the host is there); the words on top go.
    mutating func hostHeard(_ update: ClientUpdate) {
        switch update {
        case .connection, .offline, .overwhelmed, .answerDropped: return
        default: break
        }
        guard let waiting = waitingTap else { return }
        waitingTap = nil
        if banner == waiting.words { banner = nil }
    }

    /// Clears the banner; what it said stays in the notices.
    mutating func clearBanner() {
        banner = nil
        if let (level, text, time) = bannerNotice { notify(level, text, time: time) }
        bannerNotice = nil
    }

    /// Shows words about the dialog `open` on top; they go when it goes (or the next key).
    mutating func hint(_ text: String, on open: OpenModal) {
        banner = text
        dialogHint = (open.id, text)
    }

    /// Shows words in the banner now and keeps them as a notice once it is cleared.
    mutating func say(_ level: StatusLevel, _ text: String) {
        clearBanner()
        banner = text
        bannerNotice = (level, text, clock())
        bannerSince = seenAt
    }

    /// Adds a notice, stamped `time` (when it happened; now by default). A new one (`time`
    /// `nil`) is fresh: on the top line for `bannerLifetime`, unless a newer one replaces it;
    /// words that were on top already (the banner) go straight to the list. `forget`: the
    /// text quotes what a person typed, and is replaced by `words` `after` seconds.
    mutating func notify(
        _ level: StatusLevel, _ text: String, time: String? = nil, forget: (after: Double, words: String)? = nil
    ) {
        if let forget, forget.after <= 0 {
            // Never readable: the words that quote nothing from the start.
            return notify(level, forget.words, time: time)
        }
        let fresh = time == nil
        let time = time ?? clock()
        noticeSerial += 1
        if fresh {
            freshSerial = noticeSerial
            freshSince = seenAt
        } else if let serial = freshSerial, notices.contains(where: { $0.serial == serial && $0.text == text }) {
            // The fresh one came again as words kept from the top line: no longer fresh.
            freshSerial = nil
        }
        if let same = notices.firstIndex(where: { $0.level == level && $0.text == text }) {
            // Six identical notices are one, with a count and the time it last came.
            var notice = notices.remove(at: same)
            notice.count += 1
            notice.time = time
            notice.serial = noticeSerial
            if fresh { notice.at = seenAt }
            if let forget { notice.forgetAt = seenAt + forget.after }
            notices.append(notice)
            return
        }
        var notice = Notice(level: level, text: text, serial: noticeSerial, time: time, at: seenAt)
        if let forget {
            notice.forgetAt = seenAt + forget.after
            notice.forgotten = forget.words
        }
        notices.append(notice)
        while notices.count > Self.noticeLimit {
            // The oldest that is not an error goes first, else the oldest; never the one just
            // come (six errors in the list made every later notice go at once: the kiosk
            // showed no outcome any more, issue 32's last cold trial).
            let older = notices.dropLast()
            let victim = older.firstIndex { $0.level != .error } ?? older.startIndex
            notices.remove(at: victim)
        }
    }
}
