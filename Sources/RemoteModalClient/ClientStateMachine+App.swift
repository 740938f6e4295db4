import RemoteModalProtocol

extension ClientStateMachine {
    /// The app's answer: kept in the outbox until its `dismiss`, sent now if connected.
    mutating func answer(_ id: String, _ reply: FormReply) -> [ClientAction] {
        guard let form = shown[id] else { return [.emit(.skipped(why: "an answer for a modal not shown"))] }
        let message: ClientMessage =
            switch reply {
            case .answer(let answer): .result(id: id, value: form.modal.resultValue(answer))
            case .failure(let code, let text): .failure(id: id, code: code, message: text)
            }
        var actions: [ClientAction] = []
        // The result carries its own text fields: a throttled input would only come after it.
        inputPending[id] = nil
        if inputThrottled.remove(id) != nil { actions.append(.cancelTimer(.input(id: id))) }
        if case .failure = reply, uploads.removeValue(forKey: id) != nil { actions.append(.releaseFiles(id: id)) }
        outbox.removeAll { $0.id == id }
        outbox.append((id, message))
        while outbox.count > configuration.limits.outbox {
            let dropped = outbox.removeFirst()
            actions.append(.emit(.answerDropped(id: dropped.id, .ended)))
        }
        lastAnswered = id
        actions.append(snapshot())
        guard case .welcomed(let number) = phase else {
            return actions + [
                .emit(.offline(what: "answer to \u{201C}\(form.title)\u{201D} (kept until the host is back)"))
            ]
        }
        awaitingReply?.insert(id)
        return actions + [.send(attempt: number, text: message.encode())] + expectReply(number)
    }

    /// Typed text: sent at once, then at most one `input` per `inputInterval` per alert
    /// (the latest values win); kept to send again after a resume.
    mutating func typed(_ id: String, _ textFields: [String]) -> [ClientAction] {
        guard var form = shown[id], case .alert(_, _, let specs, _) = form.modal, textFields.count == specs.count else {
            return [.emit(.skipped(why: "input for a modal that is not an alert shown"))]
        }
        for (index, text) in textFields.enumerated() { form.setText(at: index, text) }
        shown[id] = form
        lastInput[id] = textFields
        guard case .welcomed(let number) = phase else { return [] }
        if inputThrottled.contains(id) {
            inputPending[id] = textFields
            return []
        }
        inputThrottled.insert(id)
        return [
            .send(attempt: number, text: ClientMessage.input(id: id, textFields: textFields).encode()),
            .startTimer(.input(id: id), seconds: configuration.policy.inputInterval),
        ] + inputSent(id, number) + probe(number)
    }

    /// Files picked for a picker: checked against its limits, then uploaded.
    mutating func picked(_ id: String, _ files: [PickedFileInfo]) -> [ClientAction] {
        guard let form = shown[id] else { return [.emit(.skipped(why: "files for a modal not shown"))] }
        let limit: Int
        let maxBytes: Int
        switch form.modal {
        case .photoPicker(let selection, _, let bytes, _):
            (limit, maxBytes) = (selection == 0 ? 1_000 : selection, bytes)
        case .mediaPicker(_, let multiple, let bytes, _): (limit, maxBytes) = (multiple ? 1_000 : 1, bytes)
        default: return [.emit(.skipped(why: "files for a modal that is not a picker"))]
        }
        let total = files.reduce(0) { $0 + $1.size }
        guard files.count <= limit, total <= maxBytes, files.allSatisfy({ $0.size >= 0 }) else {
            let why = files.count > limit ? "more than \(limit) files" : "\(total) bytes, more than \(maxBytes)"
            return [.emit(.uploadStopped(id: id, message: "Not sent: \(why)."))]
        }
        if files.isEmpty { return answer(id, .answer(.picked([]))) }
        let window = min(max(1, form.uploads?.window ?? 8), configuration.limits.uploadWindow)
        var plan = UploadPlan(files: files, window: window, chunkBytes: configuration.limits.chunkBytes)
        plan.resume(held: [:])
        if !isConnected { plan.pause() }
        uploads[id] = plan
        return pump(id)
    }

    /// Fills the upload's window with reads, or sends the result once every byte is acknowledged.
    mutating func pump(_ id: String) -> [ClientAction] {
        guard var plan = uploads[id] else { return [] }
        if plan.complete {
            uploads[id] = nil
            return [.releaseFiles(id: id)] + answer(id, .answer(.picked(plan.items)))
        }
        let asked = plan.requests()
        uploads[id] = plan
        return asked.map { .readChunk(id: id, file: $0.file, offset: $0.offset, length: $0.length) }
    }

    mutating func chunkRead(_ id: String, file: Int, offset: Int, bytes: [UInt8]) -> [ClientAction] {
        guard var plan = uploads[id], case .welcomed(let number) = phase,
            let pending = plan.take(file: file, offset: offset)
        else { return [] }
        guard bytes.count == pending.length else {
            plan.pause()
            plan.stopped = "\(plan.files[file].name) changed while it was sent"
            uploads[id] = plan
            return [.emit(.uploadStopped(id: id, message: plan.stopped ?? ""))]
        }
        uploads[id] = plan
        let info = plan.files[file]
        guard binaryChunks else {
            let chunk = UploadChunk(
                id: id, file: file, name: info.name, mimeType: info.mimeType, size: info.size, offset: offset,
                data: Base64.encode(bytes), last: pending.last)
            return [.send(attempt: number, text: ClientMessage.upload(chunk).encode())] + expectReply(number)
        }
        let chunk = UploadChunk(
            id: id, file: file, name: info.name, mimeType: info.mimeType, size: info.size, offset: offset,
            data: "", bytes: bytes, last: pending.last)
        return [.sendBinary(attempt: number, bytes: chunk.binaryFrame())] + expectReply(number)
    }

    func progress(_ id: String) -> [ClientAction] {
        guard let plan = uploads[id] else { return [] }
        return [.emit(.uploadProgress(id: id, acknowledged: plan.acknowledgedBytes, total: plan.total))]
    }
}

extension ModalForm {
    mutating func setText(at index: Int, _ text: String) {
        guard fields.indices.contains(index) else { return }
        fields[index].text = text
    }
}
