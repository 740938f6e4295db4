import RemoteModalProtocol

/// The heartbeat of docs/protocol.md, section 3, "Heartbeat": after a silence of the offered interval
/// the client sends `ping`; any message from the host within the timeout keeps the link,
/// none gives it up. The interval is the active one while something waits for the host.
extension ClientStateMachine {
    /// The shortest interval and timeout the client accepts from a host (a hostile or
    /// mistaken offer of 0 s must not make it ping in a loop), and the longest.
    static let heartbeatBounds = 1...300

    /// Whether something waits for the host: a dialog shown (uploads run only in shown
    /// pickers), an answer kept, a reply outstanding.
    var waitsForHost: Bool { !order.isEmpty || !outbox.isEmpty || replyArmed }

    func seconds(_ value: Int) -> Double {
        Double(min(max(value, Self.heartbeatBounds.lowerBound), Self.heartbeatBounds.upperBound))
    }

    /// The host was heard on this attempt (or has just welcomed it): the silence starts again.
    mutating func beat(_ number: Int) -> [ClientAction] {
        guard phase == .welcomed(number), let heartbeat else { return [] }
        var actions: [ClientAction] = []
        if pingOutstanding {
            pingOutstanding = false
            actions.append(.cancelTimer(.pong(attempt: number)))
        }
        beatActive = waitsForHost
        let interval = beatActive ? heartbeat.activeSeconds : heartbeat.idleSeconds
        return actions + [.startTimer(.heartbeat(attempt: number), seconds: seconds(interval))]
    }

    /// Something now waits for the host (a tap, an answer): an idle heartbeat becomes the
    /// active one, counted from now. An active one runs on (repeated taps must not put the
    /// ping off for ever).
    mutating func quicken(_ number: Int) -> [ClientAction] {
        guard phase == .welcomed(number), let heartbeat, !pingOutstanding, !beatActive else { return [] }
        beatActive = true
        return [.startTimer(.heartbeat(attempt: number), seconds: seconds(heartbeat.activeSeconds))]
    }

    /// Typed values of `id` went to the host: until it is heard after them, the alert is
    /// `checking` (only with a host that offers the heartbeat, whose ping then follows shortly:
    /// its `pong` says the values were taken; silence, that the host is not answering).
    mutating func inputSent(_ id: String, _ number: Int) -> [ClientAction] {
        guard heartbeat != nil, var form = shown[id] else { return [] }
        markedChecking.insert(id)
        guard !form.checking else { return [] }
        form.checking = true
        shown[id] = form
        return [.emit(.update(form))]
    }

    /// A ping soon after typed values (a host that changes nothing sends nothing), or after
    /// a resume with modals `concluding`, unless one is out already.
    mutating func probe(_ number: Int) -> [ClientAction] {
        guard phase == .welcomed(number), heartbeat != nil, !pingOutstanding,
            !markedChecking.isEmpty || !concluding.isEmpty
        else {
            return []
        }
        return [.startTimer(.heartbeat(attempt: number), seconds: Self.probeSeconds)]
    }

    /// How soon after typed values the ping goes (values typed meanwhile put it off).
    static let probeSeconds = 0.3

    /// The host was heard: values typed before the message are checked (not those sent again
    /// while it was handled, as on a resume).
    mutating func inputHeard(_ ids: [String]) -> [ClientAction] {
        var actions: [ClientAction] = []
        for id in ids where !markedChecking.contains(id) {
            guard var form = shown[id], form.checking else { continue }
            form.checking = false
            shown[id] = form
            actions.append(.emit(.update(form)))
        }
        return actions
    }

    /// The silence ran out: ask the host for a sign of life.
    mutating func ping(_ number: Int) -> [ClientAction] {
        guard let heartbeat else { return [] }
        pingOutstanding = true
        pingCount = pingCount == Int(Int32.max) ? 1 : pingCount + 1
        return [
            .send(attempt: number, text: ClientMessage.ping(id: pingCount).encode()),
            .startTimer(.pong(attempt: number), seconds: seconds(heartbeat.timeoutSeconds)),
        ]
    }
}
