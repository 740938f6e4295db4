import Dispatch
import Foundation
import RemoteModalClient
import RemoteModalClientWebSocket
import RemoteModalProtocol
import RemoteModalRobot
import Synchronization

/// Runs the kiosk: the client core (`RemoteModalClient` on a `WebSocketLink`) feeding the
/// model, and either the terminal (interactive) or a script on the test robot (unattended).
public final class KioskApp: Sendable {
    struct State {
        var model: KioskModel
        var renderPending = false
        /// When the pending `expire` runs (the client's clock): one at a time, not one per update
        /// (a flood of notices scheduled 100,000 timers).
        var expiryPending: Double?
    }

    private let state: Mutex<State>
    private let script: KioskScript?
    private let terminal = Terminal()
    private let finished = DispatchSemaphore(value: 0)
    private let exitCode = Mutex<Int32>(0)
    private let client = Mutex<RemoteModalClient?>(nil)
    private let renderQueue = DispatchQueue(label: "kiosk.render")
    private let appearance = KioskScreen.Appearance.detect()
    private let started = DispatchTime.now()

    /// Creates the app.
    /// - Parameters:
    ///   - name: The kiosk's name.
    ///   - group: Its group.
    ///   - address: The host's address as shown to the person.
    ///   - script: A script for unattended mode, or `nil` for the interactive terminal.
    ///   - typedTextLifetime: Seconds a notice quoting what a person typed stays readable.
    ///   - keptTapLifetime: Seconds a tap kept while the host is away waits for it.
    ///   - quitKey: What Ctrl-C does (`.never` for an unattended kiosk under a supervisor).
    public init(
        name: String, group: String?, address: String = "the host", script: KioskScript?,
        typedTextLifetime: Double = KioskModel.defaultTypedTextLifetime,
        keptTapLifetime: Double = KioskModel.defaultKeptTapLifetime, quitKey: KioskModel.QuitKey = .twice
    ) {
        var model = KioskModel(
            name: name, group: group, address: address, clock: Self.timeOfDay,
            typedTextLifetime: typedTextLifetime, keptTapLifetime: keptTapLifetime)
        model.quitKey = quitKey
        state = Mutex(State(model: model))
        self.script = script
        self.quitKey = quitKey
    }

    private let quitKey: KioskModel.QuitKey

    /// Connects and runs until Ctrl-C twice (interactive; never with `QuitKey.never`), a
    /// signal, or the script's end.
    /// - Parameters:
    ///   - url: The host's WebSocket URL.
    ///   - token: The access token.
    ///   - caFile: Extra certificate authorities.
    ///   - affinity: The load balancer routing key (default: the group, else random).
    /// - Returns: The exit code: 0, or 1 when a scripted step timed out.
    /// - Throws: When the connection cannot be set up.
    public func run(url: String, token: String?, caFile: String?, affinity: String? = nil) throws -> Int32 {
        let (name, group) = state.withLock { ($0.model.name, $0.model.group) }
        // A routing key, not a secret: a load balancer hashes it so reconnects reach the same host.
        let key = affinity ?? group ?? String(UInt64.random(in: 1...UInt64.max), radix: 36)
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "kiosk"
        let link = try WebSocketLink(url: url + (url.contains("?") ? "&" : "?") + "affinity=\(encoded)", caFile: caFile)
        // A script advertises the custom kinds it answers, so that a host presents them.
        let configuration = ClientConfiguration(
            client: ClientDescription(kind: "kiosk", name: name, group: group),
            capabilities: ClientConfiguration.allKinds + (script?.customCapabilities ?? []), token: token)
        let client = RemoteModalClient(configuration: configuration, link: link)
        self.client.withLock { $0 = client }
        if let script {
            log(#"{"event":"start","url":\#(ScriptRunner.quote(url))}"#)
            let robot = ModalRobot(client: client, timeout: .seconds(86_400))
            client.start()
            Task { [self] in
                let code = await ScriptRunner(script: script, robot: robot, log: log).run()
                finish(code)
            }
        } else {
            interactive(client)
        }
        finished.wait()
        client.stop()
        link.stop()
        terminal.restore()
        return exitCode.withLock { $0 }
    }

    private func interactive(_ client: RemoteModalClient) {
        terminal.enterRawMode()
        for signal in [SIGTERM, SIGHUP, SIGINT] {
            Glibc.signal(signal) { _ in
                // Restore the terminal even when killed.
                FileHandle.standardOutput.write(Data("\u{1B}[?25h\u{1B}[?1049l".utf8))
                exit(1)
            }
        }
        Glibc.signal(SIGWINCH) { _ in kioskResized() }
        resizeHandler.withLock { $0 = { [weak self] in self?.scheduleRender() } }
        scheduleRender()
        client.start()
        Task { [self] in
            // One update at a time, applied under the lock: a flood waits in the client's
            // bounded buffer, and frames are drawn at most every 20 ms.
            for await update in client.events {
                let now = seconds()
                let (due, expiry) = state.withLock { state in
                    state.model.apply(update, now: now)
                    return (state.model.takeDueChoice(now: now), state.model.bannerExpiry)
                }
                for intent in due { perform(intent) }
                scheduleRender()
                expire(at: expiry)
            }
        }
        Thread.detachNewThread { [self] in
            var interruptedAt = -Double.infinity
            terminal.readKeys { key in
                // The second Ctrl-C quits here, on the reader, whatever the rest is doing (a
                // hostile host's flood); the model says what the first one does.
                if key == .interrupt, quitKey == .twice {
                    let now = seconds()
                    if now - interruptedAt <= KioskModel.quitWindow { return finish(0) }
                    interruptedAt = now
                }
                press(key)
            }
            finish(0)
        }
    }

    private func finish(_ code: Int32) {
        exitCode.withLock { $0 = code }
        finished.signal()
    }

    private func press(_ key: Key) {
        let size = terminal.size
        let now = seconds()
        let (intents, expiry): ([KioskIntent], Double?) = state.withLock { state in
            // No input while the form cannot be shown ("screen too small") but Escape.
            guard KioskScreen.fits(state.model, width: size.columns, height: size.rows) else {
                return (state.model.pressHidden(key, now: now), state.model.bannerExpiry)
            }
            return (state.model.press(key, now: now), state.model.bannerExpiry)
        }
        for intent in intents { perform(intent) }
        scheduleRender()
        expire(at: expiry)
        // Once the check window ends: "(checking…)" becomes what the host last said, and a
        // choice kept for the check is refused in words if the host never enabled it.
        renderQueue.asyncAfter(deadline: .now() + KioskModel.checkWindow + 0.05) { [self] in
            let due = state.withLock { $0.model.takeDueChoice(now: seconds()) }
            for intent in due { perform(intent) }
            scheduleRender()
        }
    }

    private func perform(_ intent: KioskIntent) {
        guard let client = client.withLock({ $0 }) else { return }
        switch intent {
        case .answer(let id, let reply): client.answer(id, reply)
        case .type(let id, let textFields): client.type(id, textFields: textFields)
        case .tap(let control): client.tap(control)
        case .pick(let id, let paths): pick(id, paths, client: client)
        case .retryUpload(let id): client.retryUpload(id)
        case .retryNow: client.retryNow()
        case .quit: finish(0)
        }
    }

    private func pick(_ id: String, _ paths: [String], client: RemoteModalClient) {
        let modal = state.withLock { $0.model.modals.first { $0.id == id }?.modal }
        guard let modal else { return }
        switch DiskFile.open(paths, for: modal) {
        case .failure(let refusal):
            state.withLock { $0.model.pickFailed(id: id, error: refusal.message) }
        case .success(let files):
            state.withLock {
                $0.model.uploadStarted(id: id, names: files.map(\.name), total: files.reduce(0) { $0 + $1.size })
            }
            client.pick(id, files: files)
        }
    }

    /// Draws at most once per 20 ms, from a copy of the model.
    private func scheduleRender() {
        guard script == nil else { return }
        let first = state.withLock { state in
            defer { state.renderPending = true }
            return !state.renderPending
        }
        guard first else { return }
        renderQueue.asyncAfter(deadline: .now() + 0.02) { [self] in
            let model = state.withLock { state in
                state.renderPending = false
                return state.model
            }
            let size = terminal.size
            terminal.draw(
                KioskScreen.render(model, width: size.columns, height: size.rows, appearance: appearance),
                width: size.columns, height: size.rows)
        }
    }

    /// Moves the model's clock on once words said on top are due to go to the notices.
    private func expire(at expiry: Double?) {
        guard let expiry else { return }
        let first = state.withLock { state in
            if let pending = state.expiryPending, pending <= expiry { return false }
            state.expiryPending = expiry
            return true
        }
        guard first else { return }
        renderQueue.asyncAfter(deadline: .now() + max(0, expiry - seconds()) + 0.05) { [self] in
            let next = state.withLock { state in
                if state.expiryPending == expiry { state.expiryPending = nil }
                state.model.tick(now: seconds())
                return state.model.bannerExpiry
            }
            scheduleRender()
            // The next change on top (a later notice's end), scheduled once this one is done.
            expire(at: next)
        }
    }

    private func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }

    private func log(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The local time as "14:05:09", for a repeated notice.
    @Sendable static func timeOfDay() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}

/// Redraws on SIGWINCH (set by the interactive app).
private let resizeHandler = Mutex<(@Sendable () -> Void)?>(nil)

private func kioskResized() {
    resizeHandler.withLock { $0 }?()
}
