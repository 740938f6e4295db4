import RemoteModalProtocol

extension ClientStateMachine {
    /// A text frame from the host: decoded strictly, de-duplicated by `seq`, applied.
    mutating func received(_ text: String, attempt number: Int) -> [ClientAction] {
        guard text.utf8.count <= configuration.limits.messageBytes else {
            return [.emit(.skipped(why: "a message of \(text.utf8.count) bytes"))]
        }
        let message: HostMessage
        do {
            message = try HostMessage.decode(text)
        } catch {
            return heard(nil, attempt: number) + undecodable(text, error, attempt: number)
        }
        var actions = heard(message, attempt: number)
        if case .welcome(let id, let resumed, let retention, let offer, let binary) = message {
            guard phase == .open(number) else { return actions + [.emit(.skipped(why: "a second welcome"))] }
            heartbeat = offer
            binaryChunks = binary && configuration.binaryUploads
            pingOutstanding = false
            return actions + welcome(id, resumed: resumed, retention: retention, attempt: number)
        }
        guard case .welcomed = phase else {
            if case .error(_, let error) = message { return actions + helloError(error, attempt: number) }
            return actions + [.emit(.skipped(why: "a \(message.type) before the welcome"))]
        }
        if let seq = message.seq {
            // Already processed (a resume re-sends); the protocol lets a client drop it.
            guard seq > lastSeq else { return actions }
            lastSeq = seq
        }
        if resync != nil {
            switch message {
            case .controls, .present: break
            case .dismiss(_, let id, _): actions += endResync(except: id)
            default: actions += endResync(except: nil)
            }
        }
        switch message {
        case .welcome: return actions
        case .pong:
            // The host read the answers sent again before this ping: those it sent no
            // `dismiss` for are past its memory of ended modals.
            let ended = order.filter { concluding.contains($0) }
            concluding = []
            return actions + ended.flatMap { end($0, .lost(.ended)) }
        case .present(_, let id, let modal, let uploads):
            return actions + present(id, modal, uploads, attempt: number)
        case .uploadAck(_, let id, let file, let received):
            guard uploads[id] != nil else { return actions }
            uploads[id]?.acknowledge(file: file, received: received)
            return actions + progress(id) + pump(id)
        case .dismiss(_, let id, let reason):
            return actions + end(id, .host(reason))
        case .update(_, let id, let states):
            guard var form = shown[id] else { return actions }
            form.setActionStates(states)
            shown[id] = form
            return actions + [.emit(.update(form))]
        case .controls(_, let items):
            resync?.controls = true
            return actions + [.emit(.controls(items))]
        case .status(_, let level, let text):
            return actions + [.emit(.status(level, text))]
        case .error(_, let error):
            return actions + hostError(error)
        case .resumed:
            // The end of a resume's re-sent state (the resync above has ended at it).
            resentStateDue = false
            return actions
        case .presentUnknown(_, let id, let kind):
            // A kind from a newer host: answered, so the host's flow ends instead of waiting.
            guard id.utf8.count <= 256 else {
                return actions + [.emit(.skipped(why: "a present with an oversized id"))]
            }
            let unsupported = ClientMessage.failure(id: id, code: .unsupported, message: "this client cannot show it")
            return actions + [
                .emit(
                    .skipped(
                        why:
                            "a modal of a kind this client does not know: \(PrintableText.clean(String(kind.prefix(64))))"
                    ))
            ] + autoReply(id, unsupported, attempt: number)
        case .unknown(let type, _):
            return actions + [
                .emit(
                    .skipped(
                        why:
                            "a message of a type this client does not know: \(PrintableText.clean(String(type.prefix(64))))"
                    ))
            ]
        }
    }

    /// A frame that does not decode: skipped. A `present` of a kind this client does not
    /// know (or malformed) is answered `failure` `unsupported`, so the host's flow ends.
    private mutating func undecodable(_ text: String, _ error: ProtocolError, attempt number: Int)
        -> [ClientAction]
    {
        let actions: [ClientAction] = [.emit(.skipped(why: error.description))]
        guard case .welcomed = phase, let json = try? JSONParser().parse(text), json["type"]?.stringValue == "present",
            let id = json["id"]?.stringValue, id.utf8.count <= 256
        else { return actions }
        if let seq = json["seq"]?.intValue {
            guard seq > lastSeq else { return [] }
            lastSeq = seq
        }
        return actions
            + autoReply(
                id, ClientMessage.failure(id: id, code: .unsupported, message: "this client cannot show it"),
                attempt: number)
    }

    private mutating func welcome(_ id: String, resumed: Bool, retention: Int, attempt number: Int)
        -> [ClientAction]
    {
        var actions: [ClientAction] = [.cancelTimer(.welcome(attempt: number)), .cancelTimer(.retention)]
        let fresh = !resumed || id != session
        if fresh {
            // The session we had is gone: inside its retention the host lost it (restarted),
            // past it it expired while we were away.
            let loss: SessionLoss = retentionPassed ? .expired : .restarted
            for kept in outbox { actions.append(.emit(.answerDropped(id: kept.id, loss))) }
            outbox = []
            for shownID in order { actions += end(shownID, .lost(loss), persist: false) }
            lastInput = [:]
            lastSeq = 0
            heldReplies = []
            if session != nil { actions.append(.emit(.sessionReplaced(loss))) }
        }
        session = id
        retentionSeconds = max(0, retention)
        retentionPassed = false
        failures = 0
        hostLeft = false
        phase = .welcomed(number)
        actions.append(snapshot())
        actions.append(.emit(.connection(.connected(resumed: !fresh))))
        resentStateDue = !fresh
        if !fresh {
            resync = Resync(attempt: number)
            actions.append(.startTimer(.resync(attempt: number), seconds: configuration.policy.resyncTimeout))
            for shownID in order where outbox.allSatisfy({ $0.id != shownID }) {
                if let fields = lastInput[shownID] {
                    actions.append(
                        .send(attempt: number, text: ClientMessage.input(id: shownID, textFields: fields).encode()))
                    actions += inputSent(shownID, number)
                }
            }
        }
        var resent: Set<String> = []
        for kept in outbox {
            // A kept alert answer goes with its own text fields first: the resumed host forgot
            // a typed password and would refuse the answer as choosing a disabled action.
            if case .result(_, let value) = kept.message, shown[kept.id] != nil,
                let items = value["textFields"]?.arrayValue
            {
                let strings = items.compactMap(\.stringValue)
                if strings.count == items.count {
                    actions.append(
                        .send(attempt: number, text: ClientMessage.input(id: kept.id, textFields: strings).encode()))
                }
            }
            actions.append(.send(attempt: number, text: kept.message.encode()))
            resent.insert(kept.id)
        }
        if !resent.isEmpty {
            awaitingReply = resent
            actions += expectReply(number)
        }
        return actions + flushReplies()
    }

    /// An `error` before the welcome: answering the hello, it stops retrying (the same hello
    /// would be refused); `unauthorized` waits for the host's 1008 that follows.
    private mutating func helloError(_ error: ProtocolError, attempt number: Int) -> [ClientAction] {
        guard error.ref == "hello" || error.code == .unsupportedProtocol else {
            return [.emit(.hostError(error))]
        }
        helloRefusal = error
        if error.code == .unauthorized { return [.emit(.hostError(error))] }
        return lost(number, .helloRefused(error), stop: true, close: true)
    }

    private mutating func present(_ id: String, _ modal: ModalDescription, _ offer: UploadOffer?, attempt number: Int)
        -> [ClientAction]
    {
        resync?.seen.insert(id)
        var form = ModalForm(id: id, modal: modal, uploads: offer)
        if let before = shown[id] {
            // Re-sent after a resume: no second dialog; the host's action states, and an
            // upload continues at what the host holds. Values re-sent at the welcome are
            // still being checked (this state was sent before the host read them).
            form.checking = before.checking
            shown[id] = form
            var actions: [ClientAction] = [.emit(.represent(form))]
            if var plan = uploads[id], plan.stopped == nil, outbox.allSatisfy({ $0.id != id }) {
                if let window = offer?.window { plan.window = min(max(1, window), configuration.limits.uploadWindow) }
                plan.resume(held: Dictionary((offer?.received ?? []).map { ($0.file, $0.bytes) }) { first, _ in first })
                uploads[id] = plan
                actions += pump(id)
            }
            return actions
        }
        guard shown.count < configuration.limits.shownModals else {
            let limit = configuration.limits.shownModals
            // Answered at once, each: the host's own pending limit is the same, so only a host
            // past its own bound meets this (the budget is for presents of unknown kinds).
            return [
                .emit(.skipped(why: "a present past \(limit) modals shown")),
                .send(
                    attempt: number,
                    text: ClientMessage.failure(
                        id: id, code: .failed, message: "this client shows at most \(limit) modals at once"
                    ).encode()),
            ]
        }
        shown[id] = form
        order.append(id)
        return [.emit(.present(form, answered: outbox.contains { $0.id == id }))]
    }

    /// Ends a modal: forgets its answer, input and upload, and tells the app.
    mutating func end(_ id: String, _ how: ModalEnd, persist: Bool = true) -> [ClientAction] {
        let wasShown = shown.removeValue(forKey: id) != nil
        order.removeAll { $0 == id }
        lastInput[id] = nil
        inputPending[id] = nil
        // The host ended it: an automatic reply still held for it is not needed.
        heldReplies.removeAll { $0.id == id }
        var actions: [ClientAction] = []
        if inputThrottled.remove(id) != nil { actions.append(.cancelTimer(.input(id: id))) }
        if uploads.removeValue(forKey: id) != nil { actions.append(.releaseFiles(id: id)) }
        let kept = outbox.contains { $0.id == id }
        if kept {
            outbox.removeAll { $0.id == id }
            if persist { actions.append(snapshot()) }
        }
        awaitingReply?.remove(id)
        concluding.remove(id)
        guard wasShown || kept else { return actions }
        return actions + [.emit(.dismiss(id: id, how))]
    }

    /// The resume's re-sent state is in: a shown modal the host did not present again ended
    /// while we were away; a re-sent answer for it waits for no reply. With the heartbeat,
    /// one whose answer was sent again waits for the host's verdict (`concluding`): its
    /// repeated `dismiss` says how it ended, a `pong` without one that it ended.
    mutating func endResync(except dismissed: String?) -> [ClientAction] {
        guard let done = resync else { return [] }
        resync = nil
        var actions: [ClientAction] = [.cancelTimer(.resync(attempt: done.attempt))]
        for id in order where !done.seen.contains(id) && id != dismissed {
            if heartbeat != nil, outbox.contains(where: { $0.id == id }) {
                concluding.insert(id)
            } else {
                actions += end(id, .lost(.ended))
            }
        }
        if done.controls, var awaiting = awaitingReply {
            awaiting = awaiting.filter { done.seen.contains($0) || $0 == dismissed }
            awaitingReply = awaiting
            if awaiting.isEmpty, replyArmed {
                replyArmed = false
                awaitingReply = nil
                actions.append(.cancelTimer(.reply(attempt: done.attempt)))
            }
        }
        return actions
    }

    private mutating func hostError(_ error: ProtocolError) -> [ClientAction] {
        // The chunk refused for pacing is the reply to one chunk of the named upload (an older
        // host names none: the first running); every running upload stops sending until its
        // chunks in flight are answered. A chunk refused behind it, while that upload waits,
        // was sent before the client could know (§7): counted out, not a stop.
        let draining = error.id.flatMap { uploads[$0]?.draining == true ? $0 : nil }
        if error.ref == "upload", error.code == .rateLimited || (error.code == .uploadInvalid && draining != nil) {
            let named = error.id ?? order.first { uploads[$0]?.running == true }
            var actions: [ClientAction] = []
            for id in uploads.keys.sorted()
            where uploads[id]?.running == true && (error.code == .rateLimited || id == draining) {
                let held = error.id == id ? error.file.flatMap { file in error.held.map { (file, $0) } } : nil
                uploads[id]?.rewind(refused: named == id, held: held)
                actions += pump(id)
            }
            return actions
        }
        if error.code == .uploadInvalid,
            let id = error.id.flatMap({ uploads[$0] != nil ? $0 : nil })
                ?? order.first(where: {
                    uploads[$0]?.running == true || (uploads[$0] != nil && error.ref == "result")
                })
        {
            uploads[id]?.pause()
            uploads[id]?.stopped = error.message
            // What the host holds of the refused file is where a retry goes on (0: from the start).
            if error.ref == "upload", let file = error.file, let held = error.held {
                uploads[id]?.hold(file: file, bytes: held)
            }
            var actions: [ClientAction] = [.emit(.uploadStopped(id: id, message: error.message))]
            if error.ref == "result", outbox.contains(where: { $0.id == id }) {
                outbox.removeAll { $0.id == id }
                actions.append(snapshot())
            }
            return actions
        }
        let refusals: [ErrorCode] = [.badMessage, .actionDisabled, .uploadInvalid]
        // The refused answer is the one the error names (its `id`), else the last one sent.
        if refusals.contains(error.code), error.ref == "result" || error.ref == "failure",
            let id = error.id ?? lastAnswered, outbox.contains(where: { $0.id == id })
        {
            outbox.removeAll { $0.id == id }
            if lastAnswered == id { lastAnswered = nil }
            return [snapshot(), .emit(.answerRejected(id: id, error))]
        }
        return [.emit(.hostError(error))]
    }
}
