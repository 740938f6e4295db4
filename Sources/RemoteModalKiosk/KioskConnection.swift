import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalWebSocket
import Synchronization

/// Runs work after a delay. Injected so tests can drive time by hand.
public protocol KioskClock: Sendable {
    /// Runs `work` once, `seconds` from now, on any thread.
    /// - Parameters:
    ///   - seconds: The delay.
    ///   - work: What to run.
    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void)
}

/// The real clock: a global dispatch queue.
public struct DispatchClock: KioskClock {
    /// Creates the clock.
    public init() {}

    /// Runs `work` after `seconds` on a global queue.
    /// - Parameters:
    ///   - seconds: The delay.
    ///   - work: What to run.
    public func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: work)
    }
}

/// What happened to one connection attempt.
public enum LinkEvent: Sendable, Equatable {
    /// The WebSocket opened.
    case opened
    /// A text message arrived.
    case text(String)
    /// The open connection closed (`code` from the close frame, 1006 when there was none).
    case closed(code: UInt16, reason: String)
    /// The attempt never opened: refused, reset, TLS failure, an HTTP error status.
    case failed(String)
}

/// Opens WebSocket connections for the kiosk. Each attempt is numbered by the caller
/// before it starts, so an event that comes back at once (a refused connection on the
/// loopback) is never mistaken for another attempt's.
public protocol KioskConnector: Sendable {
    /// Starts an attempt; its events go to `events`, possibly before this returns and on
    /// any thread.
    /// - Parameters:
    ///   - url: The WebSocket URL.
    ///   - attempt: The caller's number for this attempt.
    ///   - events: Called with `attempt` and each event.
    /// - Throws: For a malformed URL.
    func open(_ url: String, attempt: Int, events: @escaping @Sendable (Int, LinkEvent) -> Void) throws
    /// Sends a text message on an open attempt (dropped otherwise).
    /// - Parameters:
    ///   - text: The message.
    ///   - attempt: The attempt.
    func send(_ text: String, attempt: Int)
    /// Closes an attempt (at once, or as soon as it opens); no more events come for it.
    /// - Parameter attempt: The attempt.
    func close(attempt: Int)
    /// Closes everything for good.
    func stop()
}

/// When to try again: exponential backoff from `base` with jitter, never longer than `cap`,
/// and never giving up.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The first delay's ceiling, in seconds.
    public var base: Double
    /// The longest delay, in seconds.
    public var cap: Double
    /// How long an open connection may go without a `welcome` before it counts as failed.
    public var welcomeTimeout: Double
    /// How long a connection may stay silent after an answer or an upload chunk (the host
    /// answers each at once) before it counts as dead: a network that dies without closing.
    public var replyTimeout: Double

    /// Creates a policy.
    /// - Parameters:
    ///   - base: The first delay's ceiling.
    ///   - cap: The longest delay.
    ///   - welcomeTimeout: Seconds from an attempt's start to its `welcome`.
    ///   - replyTimeout: Seconds of silence after an answer or a chunk before giving up.
    public init(base: Double = 0.25, cap: Double = 3, welcomeTimeout: Double = 10, replyTimeout: Double = 10) {
        self.base = base
        self.cap = cap
        self.welcomeTimeout = welcomeTimeout
        self.replyTimeout = replyTimeout
    }

    /// The delay before the next attempt.
    /// - Parameters:
    ///   - failures: Failures in a row so far (1 after the first).
    ///   - random: A number in 0..<1 (the jitter).
    /// - Returns: Between half the ceiling and the ceiling, the ceiling doubling per failure up to `cap`.
    public func delay(failures: Int, random: Double) -> Double {
        let ceiling = min(cap, base * pow(2, Double(min(max(0, failures - 1), 30))))
        return ceiling * (0.5 + 0.5 * min(max(random, 0), 1))
    }
}

/// The real connector: a libwebsockets client.
public final class WebSocketConnector: KioskConnector {
    private struct Link {
        var attempt: Int
        var events: @Sendable (Int, LinkEvent) -> Void
        var closeWhenOpen = false
    }

    private struct Table {
        var links: [ConnectionID: Link] = [:]
        var ids: [Int: ConnectionID] = [:]
    }

    // Held while `connect` runs and while an event looks its link up, so an event that
    // arrives before `connect` returned waits for the link to be recorded.
    private let table = Locked(Table())
    private let client = Locked<WebSocketClient?>(nil)

    /// Creates the client.
    /// - Parameter caFile: Extra certificate authorities for `wss://`.
    /// - Throws: When the client cannot be created.
    public init(caFile: String?) throws {
        let created = try WebSocketClient(
            caFile: caFile, logger: Logger(label: "kiosk", settings: LoggerSettings(level: .error)),
            onOpen: { [weak self] id in self?.event(id, .opened) },
            onMessage: { [weak self] id, message in
                guard case .text(let text) = message else { return }
                self?.event(id, .text(text))
            },
            onClose: { [weak self] id, code, reason in self?.event(id, .closed(code: code.rawValue, reason: reason)) },
            onFailure: { [weak self] id, message in self?.event(id, .failed(message)) })
        client.withLock { $0 = created }
    }

    /// Starts an attempt.
    /// - Parameters:
    ///   - url: The URL.
    ///   - attempt: Its number.
    ///   - events: Its events.
    /// - Throws: For a malformed URL.
    public func open(_ url: String, attempt: Int, events: @escaping @Sendable (Int, LinkEvent) -> Void) throws {
        guard let client = client.withLock({ $0 }) else { return }
        try table.withLock { table in
            let id = try client.connect(url)
            table.links[id] = Link(attempt: attempt, events: events)
            table.ids[attempt] = id
        }
    }

    /// Sends on an attempt.
    /// - Parameters:
    ///   - text: The message.
    ///   - attempt: The attempt.
    public func send(_ text: String, attempt: Int) {
        guard let id = table.withLock({ $0.ids[attempt] }) else { return }
        client.withLock { $0 }?.send(text: text, to: id)
    }

    /// Closes an attempt.
    /// - Parameter attempt: The attempt.
    public func close(attempt: Int) {
        guard let id = table.withLock({ $0.ids[attempt] }) else { return }
        table.withLock { $0.links[id]?.closeWhenOpen = true }
        client.withLock { $0 }?.close(id, code: .goingAway, reason: "gave up waiting")
    }

    /// Closes everything.
    public func stop() {
        client.withLock { $0 }?.stop()
    }

    private func event(_ id: ConnectionID, _ event: LinkEvent) {
        let link: Link? = table.withLock { table in
            guard let link = table.links[id] else { return nil }
            switch event {
            case .closed, .failed:
                table.links[id] = nil
                table.ids[link.attempt] = nil
            case .opened, .text: break
            }
            return link
        }
        guard let link else { return }
        if link.closeWhenOpen {
            if event == .opened { client.withLock { $0 }?.close(id, code: .goingAway, reason: "gave up waiting") }
            return
        }
        link.events(link.attempt, event)
    }
}

/// The kiosk's side of the protocol: connects, says hello (resuming its session),
/// drops messages whose `seq` it has seen, re-sends unconfirmed answers after a resume,
/// and reconnects for ever, with backoff and jitter capped at a few seconds, whatever
/// ended the last attempt.
public final class KioskConnection: Sendable {
    private struct State {
        /// The attempt whose events count; `nil` while waiting to retry.
        var current: Int?
        /// Whether `current` got its `welcome` (messages are sent only then).
        var welcomed = false
        var attempts = 0
        var failures = 0
        var session: String?
        var lastSeq = 0
        var unconfirmed: [String: ClientMessage] = [:]
        var order: [String] = []
        var stopped = false
        /// Bumped by every message heard; a reply watchdog armed at one value fires only if
        /// nothing was heard since (`nil`: none armed).
        var heard = 0
        var replyWatch: Int?
    }

    private let url: String
    private let hello: Hello
    private let state = Locked(State())
    private let connector: any KioskConnector
    private let clock: any KioskClock
    private let policy: ReconnectPolicy
    private let random: @Sendable () -> Double
    private let onMessage: @Sendable (HostMessage) -> Void
    private let onState: @Sendable (KioskModel.Connection) -> Void

    /// Creates a connection over libwebsockets with the real clock.
    /// - Parameters:
    ///   - url: The host's WebSocket URL.
    ///   - hello: The hello to send (its `resumeSession` is filled in on reconnects).
    ///   - caFile: Extra certificate authorities for `wss://`.
    ///   - affinity: The routing key a load balancer hashes (default: the group, so a
    ///     group's kiosks share a host; else random).
    ///   - onMessage: Each new host message.
    ///   - onState: Connection state changes.
    /// - Throws: When the client cannot be created.
    public convenience init(
        url: String, hello: Hello, caFile: String?, affinity: String? = nil,
        onMessage: @escaping @Sendable (HostMessage) -> Void,
        onState: @escaping @Sendable (KioskModel.Connection) -> Void
    ) throws {
        self.init(
            url: url, hello: hello, affinity: affinity, connector: try WebSocketConnector(caFile: caFile),
            onMessage: onMessage, onState: onState)
    }

    /// Creates a connection with the given connector, clock, policy and randomness.
    /// - Parameters:
    ///   - url: The host's WebSocket URL.
    ///   - hello: The hello to send.
    ///   - affinity: The load balancer's routing key.
    ///   - connector: Opens the attempts.
    ///   - clock: Runs the retries and the welcome timeout.
    ///   - policy: The backoff.
    ///   - random: Numbers in 0..<1 for the jitter.
    ///   - onMessage: Each new host message.
    ///   - onState: Connection state changes.
    public init(
        url: String, hello: Hello, affinity: String? = nil, connector: any KioskConnector,
        clock: any KioskClock = DispatchClock(), policy: ReconnectPolicy = ReconnectPolicy(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        onMessage: @escaping @Sendable (HostMessage) -> Void,
        onState: @escaping @Sendable (KioskModel.Connection) -> Void
    ) {
        // A routing key, not a secret: a load balancer hashes it so reconnects reach the same host.
        let key = affinity ?? hello.client.group ?? String(UInt64.random(in: 1...UInt64.max), radix: 36)
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "kiosk"
        self.url = url + (url.contains("?") ? "&" : "?") + "affinity=\(encoded)"
        self.hello = hello
        self.connector = connector
        self.clock = clock
        self.policy = policy
        self.random = random
        self.onMessage = onMessage
        self.onState = onState
    }

    /// Starts connecting.
    /// - Throws: For a malformed URL (later attempts never throw; they retry).
    public func start() throws {
        try attempt(throwing: true)
    }

    /// Sends a message; answers are kept and re-sent after a resume until dismissed.
    /// Anything sent while there is no welcomed connection is dropped (answers are re-sent).
    /// - Parameter message: The message.
    public func send(_ message: ClientMessage) {
        let (attempt, watch): (Int?, Int?) = state.withLock { state in
            var expectsReply = false
            switch message {
            case .result(let modal, _), .failure(let modal, _, _):
                if state.unconfirmed[modal] == nil { state.order.append(modal) }
                state.unconfirmed[modal] = message
                expectsReply = true
            case .upload: expectsReply = true
            default: break
            }
            guard state.welcomed, let current = state.current else { return (nil, nil) }
            // The host answers an answer or a chunk at once: silence means a network that
            // died without closing (the kiosk said "connected" beside "waiting for the host").
            guard expectsReply, state.replyWatch == nil else { return (current, nil) }
            state.replyWatch = state.heard
            return (current, state.heard)
        }
        guard let attempt else { return }
        connector.send(message.encode(), attempt: attempt)
        if let watch {
            clock.schedule(after: policy.replyTimeout) { [weak self] in self?.replyOverdue(attempt, heard: watch) }
        }
    }

    private func replyOverdue(_ attempt: Int, heard: Int) {
        let silent = state.withLock { state in
            guard state.replyWatch == heard else { return false }
            state.replyWatch = nil
            return state.current == attempt && state.heard == heard
        }
        guard silent else { return }
        connector.close(attempt: attempt)
        ended(attempt, unauthorized: false)
    }

    /// Whether a welcomed connection is up now.
    public var isConnected: Bool { state.withLock { $0.welcomed && $0.current != nil } }

    /// Closes for good.
    public func stop() {
        state.withLock { $0.stopped = true }
        connector.stop()
    }

    private func attempt(throwing: Bool) throws {
        let number: Int? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.attempts += 1
            state.current = state.attempts
            state.welcomed = false
            return state.attempts
        }
        guard let number else { return }
        clock.schedule(after: policy.welcomeTimeout) { [weak self] in self?.welcomeOverdue(number) }
        do {
            try connector.open(url, attempt: number) { [weak self] attempt, event in self?.handle(attempt, event) }
        } catch {
            if throwing { throw error }
            handle(number, .failed("\(error)"))
        }
    }

    private func handle(_ attempt: Int, _ event: LinkEvent) {
        guard state.withLock({ $0.current == attempt && !$0.stopped }) else { return }
        switch event {
        case .opened:
            var hello = self.hello
            // With the last seq processed: the host sends again the statuses after it.
            (hello.resumeSession, hello.resumeLastSeq) = state.withLock { state in
                (state.session, state.session == nil || state.lastSeq == 0 ? nil : state.lastSeq)
            }
            connector.send(ClientMessage.hello(hello).encode(), attempt: attempt)
        case .text(let text):
            received(text, attempt: attempt)
        case .closed(let code, let reason):
            ended(attempt, unauthorized: code == CloseCode.policyViolation.rawValue && reason == "unauthorized")
        case .failed:
            ended(attempt, unauthorized: false)
        }
    }

    private func welcomeOverdue(_ attempt: Int) {
        guard state.withLock({ $0.current == attempt && !$0.welcomed }) else { return }
        connector.close(attempt: attempt)
        ended(attempt, unauthorized: false)
    }

    private func ended(_ attempt: Int, unauthorized: Bool) {
        let failures: Int? = state.withLock { state in
            guard state.current == attempt, !state.stopped else { return nil }
            state.current = nil
            state.welcomed = false
            state.replyWatch = nil
            state.failures += 1
            return state.failures
        }
        guard let failures else { return }
        onState(unauthorized ? .unauthorized : .reconnecting)
        // A refused token is retried at the slowest pace: the grant may come back.
        let delay = unauthorized ? policy.cap : policy.delay(failures: failures, random: random())
        clock.schedule(after: delay) { [weak self] in try? self?.attempt(throwing: false) }
    }

    private func received(_ text: String, attempt: Int) {
        guard let message = try? HostMessage.decode(text) else { return }
        let resend: [ClientMessage]? = state.withLock { state in
            guard state.current == attempt else { return nil }
            state.heard += 1
            state.replyWatch = nil
            if case .welcome(let session, let resumed, _) = message {
                if !resumed || session != state.session {
                    state.lastSeq = 0
                    state.unconfirmed = [:]
                    state.order = []
                }
                state.session = session
                state.failures = 0
                state.welcomed = true
                return state.order.compactMap { state.unconfirmed[$0] }
            }
            if case .error = message {
                // Errors are answers to what we sent; they are never replayed.
            } else if let seq = message.seq {
                guard seq > state.lastSeq else { return nil }
                state.lastSeq = seq
            }
            if case .dismiss(_, let id, _) = message {
                state.unconfirmed[id] = nil
                state.order.removeAll { $0 == id }
            }
            return []
        }
        guard let resend else { return }
        if case .welcome = message { onState(.connected) }
        onMessage(message)
        for answer in resend {
            // A kept alert answer goes with its own text fields first: on the resume the host
            // forgot the typed password and disabled the action its rule guards, and would
            // refuse the answer alone as choosing a disabled action.
            if case .result(let id, let value) = answer, let items = value["textFields"]?.arrayValue {
                let strings = items.compactMap(\.stringValue)
                if strings.count == items.count { send(.input(id: id, textFields: strings)) }
            }
            send(answer)
        }
    }
}
