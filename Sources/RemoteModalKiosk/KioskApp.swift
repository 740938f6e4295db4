import Dispatch
import Foundation
import RemoteModalCrypto
import RemoteModalLocking
import RemoteModalProtocol
import Synchronization

/// Runs the kiosk: the model on one serial queue, the connection feeding it, and either
/// the terminal (interactive) or a script (unattended) driving it.
public final class KioskApp: @unchecked Sendable {
    // `@unchecked Sendable`: `model`, `runner` and `deadline` are only touched on `queue`.
    private let queue = DispatchQueue(label: "kiosk")
    private var model: KioskModel
    private var runner: ScriptRunner?
    private var deadline: Date?
    private let terminal = Terminal()
    private var connection: KioskConnection?
    private let finished = DispatchSemaphore(value: 0)
    private let exitCode = Locked<Int32>(0)
    /// The bytes of each picker's files while they are being sent (only touched on `queue`).
    private var uploadData: [String: [Data]] = [:]
    private let appearance = KioskScreen.Appearance.detect()

    /// Creates the app.
    /// - Parameters:
    ///   - name: The kiosk's name.
    ///   - group: Its group.
    ///   - script: A script for unattended mode, or `nil` for the interactive terminal.
    public init(name: String, group: String?, script: KioskScript?) {
        model = KioskModel(name: name, group: group)
        runner = script.map(ScriptRunner.init(script:))
    }

    /// Connects and runs until Ctrl-C (interactive) or the script ends.
    /// - Parameters:
    ///   - url: The host's WebSocket URL.
    ///   - token: The access token.
    ///   - caFile: Extra certificate authorities.
    ///   - affinity: The load balancer routing key (default: the group, else random).
    /// - Returns: The exit code: 0, or 1 when a scripted step timed out.
    /// - Throws: When the connection cannot be set up.
    public func run(url: String, token: String?, caFile: String?, affinity: String? = nil) throws -> Int32 {
        let hello = Hello(
            client: ClientDescription(kind: "kiosk", name: model.name, group: model.group),
            capabilities: KioskModel.capabilities, token: token)
        let connection = try KioskConnection(
            url: url, hello: hello, caFile: caFile, affinity: affinity,
            onMessage: { [self] message in queue.async { self.receive(message) } },
            onState: { [self] state in queue.async { self.connectionChanged(state) } })
        self.connection = connection
        try connection.start()
        if runner != nil {
            log("{\"event\":\"start\",\"url\":\"\(url)\"}")
            queue.async { self.armDeadline() }
            startWatchdog()
        } else {
            terminal.enterRawMode()
            for signal in [SIGTERM, SIGHUP] {
                Glibc.signal(signal) { _ in
                    // Restore the terminal even when killed.
                    FileHandle.standardOutput.write(Data("\u{1B}[?25h\u{1B}[?1049l".utf8))
                    exit(1)
                }
            }
            Glibc.signal(SIGWINCH) { _ in kioskResized() }
            let app = self
            resizeHandler.withLock { $0 = Boxed({ app.queue.async { app.render() } }) }
            queue.async { self.render() }
            Thread.detachNewThread { [self] in
                terminal.readKeys { key in queue.async { self.press(key) } }
                queue.async { self.finish(0) }
            }
        }
        finished.wait()
        connection.stop()
        terminal.restore()
        return exitCode.withLock { $0 }
    }

    private func finish(_ code: Int32) {
        exitCode.withLock { $0 = code }
        finished.signal()
    }

    private func receive(_ message: HostMessage) {
        perform(model.receive(message))
        if runner != nil {
            switch message {
            case .present(_, let id, let modal, _):
                log(
                    "{\"event\":\"present\",\"id\":\"\(id)\",\"kind\":\"\(modal.kind)\",\"title\":\(json(modal.title ?? ""))}"
                )
            case .status(_, let level, let text):
                log("{\"event\":\"status\",\"level\":\"\(level.rawValue)\",\"text\":\(json(text))}")
            case .welcome(_, let resumed, _):
                log("{\"event\":\"welcome\",\"resumed\":\(resumed)}")
            default: break
            }
            drive()
        } else {
            render()
        }
    }

    private func connectionChanged(_ state: KioskModel.Connection) {
        model.connectionChanged(state)
        if runner != nil {
            log("{\"event\":\"connection\",\"state\":\"\(state.rawValue)\"}")
        } else {
            render()
        }
    }

    private func press(_ key: Key) {
        let effects = model.press(key)
        perform(effects)
        render()
    }

    private func perform(_ effects: [KioskEffect]) {
        for effect in effects {
            switch effect {
            case .send(let message): connection?.send(message)
            case .upload(let id, let paths):
                // Drawn first ("Reading files..."), then read.
                queue.async { self.read(id, paths) }
            case .sendChunk(let id, let chunk): send(chunk, of: id)
            case .dropUpload(let id): uploadData[id] = nil
            case .quit: finish(0)
            }
        }
    }

    private func render() {
        guard runner == nil else { return }
        let size = terminal.size
        terminal.draw(
            KioskScreen.render(model, width: size.columns, height: size.rows, appearance: appearance),
            width: size.columns, height: size.rows)
    }

    // MARK: Script

    private func drive() {
        guard var runner else { return }
        let before = runner.index
        let (effects, lines) = runner.advance(&model)
        self.runner = runner
        for line in lines { log(line) }
        perform(effects)
        if runner.finished {
            log("{\"event\":\"done\"}")
            finish(0)
        } else if runner.index != before {
            armDeadline()
        }
    }

    private func armDeadline() {
        guard let runner else { return }
        deadline = Date().addingTimeInterval(runner.timeout)
    }

    private func startWatchdog() {
        queue.asyncAfter(deadline: .now() + 0.2) { [self] in
            if let deadline, Date() > deadline, let runner, !runner.finished {
                log("{\"event\":\"timeout\",\"step\":\(runner.index)}")
                finish(1)
                return
            }
            drive()
            startWatchdog()
        }
    }

    private func log(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func json(_ text: String) -> String {
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    // MARK: Uploads

    private func read(_ id: String, _ paths: [String]) {
        guard let open = model.modals.first(where: { $0.id == id }), open.reading else { return }
        let (limit, maxBytes): (Int, Int)
        switch open.modal {
        // Selection limit 0: no limit but the protocol's 1,000 files.
        case .photoPicker(let selection, _, let bytes, _):
            (limit, maxBytes) = (selection == 0 ? 1_000 : selection, bytes)
        case .mediaPicker(_, let multiple, let bytes, _): (limit, maxBytes) = (multiple ? 1_000 : 1, bytes)
        default: return
        }
        defer { render() }
        guard !paths.isEmpty else { return model.uploadFailed(id: id, error: "Type the path of at least one file.") }
        var contents: [(String, Data)] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: (path as NSString).expandingTildeInPath) else {
                return model.uploadFailed(id: id, error: "Cannot read \(path)")
            }
            contents.append((path, data))
        }
        let total = contents.reduce(0) { $0 + $1.1.count }
        guard contents.count <= limit, total <= maxBytes else {
            return model.uploadFailed(
                id: id,
                error: "Up to \(Self.files(limit)), \(KioskUpload.format(maxBytes)) in all; these are "
                    + "\(Self.files(contents.count)), \(KioskUpload.format(total)).")
        }
        let files = contents.map { path, data in
            let name = (path as NSString).lastPathComponent
            return KioskUpload.File(
                name: name, mimeType: Self.mimeType(name), size: data.count, sha256: SHA256.hex(data))
        }
        uploadData[id] = contents.map(\.1)
        perform(model.startUpload(id: id, files: files))
    }

    private func send(_ chunk: KioskUpload.Chunk, of id: String) {
        guard let data = uploadData[id]?[chunk.file],
            let file = model.modals.first(where: { $0.id == id })?.upload?.files[chunk.file]
        else { return }
        let part = data.subdata(in: chunk.offset..<min(data.count, chunk.offset + chunk.length))
        connection?.send(
            .upload(
                UploadChunk(
                    id: id, file: chunk.file, name: file.name, mimeType: file.mimeType, size: file.size,
                    offset: chunk.offset, data: part.base64EncodedString(), last: chunk.last)))
    }

    static func mimeType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "heif": "image/heif"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "aac": "audio/aac"
        case "ogg", "oga": "audio/ogg"
        case "flac": "audio/flac"
        case "wav": "audio/wav"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "txt": "text/plain"
        case "pdf": "application/pdf"
        default: "application/octet-stream"
        }
    }
}

/// Redraws on SIGWINCH (set by the interactive app).
private let resizeHandler = Locked<Boxed<@Sendable () -> Void>?>(nil)

private func kioskResized() {
    resizeHandler.withLock { $0 }?.value()
}

extension KioskApp {
    /// "1 file", "3 files": the picker's note says the limit the same way.
    static func files(_ count: Int) -> String { count == 1 ? "1 file" : "\(count) files" }
}
