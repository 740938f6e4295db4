import Dispatch
import Foundation
import Synchronization

/// How long to wait before reconnecting: doubling from `initial` up to `maximum`.
public struct RedisBackoff: Sendable, Equatable {
    /// The first delay, in seconds.
    public var initial: Double
    /// The longest delay, in seconds.
    public var maximum: Double

    /// Creates a backoff.
    /// - Parameters:
    ///   - initial: The first delay in seconds.
    ///   - maximum: The longest delay in seconds.
    public init(initial: Double = 0.1, maximum: Double = 2) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before attempt `failures` (1 after the first failure).
    func delay(after failures: Int) -> Double {
        min(maximum, initial * pow(2, Double(max(0, min(failures - 1, 30)))))
    }
}

/// A command connection to Redis: commands run one at a time on the client's own queue,
/// and each completion is called there with a typed reply or error.
///
/// After a failure the connection is dropped; until the backoff delay passes, commands
/// fail at once with `unavailable` (fail fast), then the next command reconnects.
///
/// `@unchecked Sendable` invariant: `connection`, `failures` and `retryAt` are read and
/// written only on `queue`.
public final class RedisClient: @unchecked Sendable {
    /// Where Redis is.
    public let endpoint: RedisEndpoint
    private let timeoutMilliseconds: Int
    private let backoff: RedisBackoff
    private let queue = DispatchQueue(label: "redis.client")
    private var connection: RedisConnection?
    private var failures = 0
    private var retryAt = DispatchTime(uptimeNanoseconds: 0)

    /// Creates a client; it connects on the first command.
    /// - Parameters:
    ///   - endpoint: Where Redis is.
    ///   - timeoutMilliseconds: Connect and I/O timeout.
    ///   - backoff: Reconnection delays.
    public init(endpoint: RedisEndpoint, timeoutMilliseconds: Int = 1_000, backoff: RedisBackoff = RedisBackoff()) {
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
        self.backoff = backoff
    }

    /// Runs a command on the client's queue.
    /// - Parameters:
    ///   - arguments: The command and its arguments (`["SET", key, value, "NX"]`).
    ///   - completion: Called on the client's queue with the reply (an error reply is a
    ///     `.error` reply, not a thrown error) or the connection's failure.
    public func send(_ arguments: [String], completion: @escaping @Sendable (Result<RedisReply, RedisError>) -> Void) {
        queue.async { completion(self.run(arguments)) }
    }

    /// Runs a command and waits for it (tests, shutdown).
    /// - Parameter arguments: The command.
    /// - Returns: The reply or the failure.
    public func sendAndWait(_ arguments: [String]) -> Result<RedisReply, RedisError> {
        queue.sync { run(arguments) }
    }

    /// Drops the connection (the next command reconnects).
    public func close() { queue.sync { connection = nil } }

    private func run(_ arguments: [String]) -> Result<RedisReply, RedisError> {
        let reused = connection != nil
        let first = attempt(arguments)
        // A connection that sat idle may have died with a Redis that has since restarted:
        // its first command then fails on the stale socket; try once more on a fresh one at
        // once. (A command may so be sent twice: callers make theirs idempotent.)
        if reused, case .failure(let error) = first, error.kind == .io {
            retryAt = .now()
            return attempt(arguments)
        }
        return first
    }

    private func attempt(_ arguments: [String]) -> Result<RedisReply, RedisError> {
        do {
            let live = try connected()
            return .success(try live.command(arguments))
        } catch {
            // Failing fast while backing off is no new failure: counting it would push the
            // next attempt further out with every command (a heartbeat every few hundred
            // milliseconds then kept the client from ever reconnecting).
            if error.kind != .unavailable { fail() }
            return .failure(error)
        }
    }

    /// Ends the backoff: the next command connects at once (Redis is known to be back, for
    /// example because a subscription to it just succeeded).
    public func retryNow() {
        queue.async {
            guard self.connection == nil else { return }
            self.retryAt = .now()
        }
    }

    private func connected() throws(RedisError) -> RedisConnection {
        if let connection { return connection }
        guard DispatchTime.now() >= retryAt else {
            throw RedisError(.unavailable, "reconnecting to \(endpoint) (backing off after \(failures) failures)")
        }
        let fresh = try RedisConnection(endpoint, timeoutMilliseconds: timeoutMilliseconds)
        connection = fresh
        failures = 0
        return fresh
    }

    private func fail() {
        connection = nil
        failures += 1
        retryAt = .now() + backoff.delay(after: failures)
    }
}

/// A subscribed connection on its own thread: it subscribes to channels, delivers every
/// message to `onMessage`, and after a failure reconnects with backoff and subscribes
/// again, reporting each change of state to `onState`.
///
/// `@unchecked Sendable` invariant: the mutable state (`connection`, `stopped`) is behind
/// `lock`; the thread owns the connection's reads, other threads only `interrupt()` it.
public final class RedisSubscriber: @unchecked Sendable {
    /// Where Redis is.
    public let endpoint: RedisEndpoint
    private let channels: [String]
    private let backoff: RedisBackoff
    private let timeoutMilliseconds: Int
    private let onMessage: @Sendable (_ channel: String, _ payload: String) -> Void
    private let onState: @Sendable (_ subscribed: Bool, _ error: RedisError?) -> Void
    private let lock = NSLock()
    private var connection: RedisConnection?
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    /// Creates a subscriber; `start()` begins.
    /// - Parameters:
    ///   - endpoint: Where Redis is.
    ///   - channels: The channels to subscribe to.
    ///   - timeoutMilliseconds: Connect timeout.
    ///   - backoff: Reconnection delays.
    ///   - onState: Called on the subscriber's thread when it becomes subscribed (`true`)
    ///     or loses the connection (`false`, with the error).
    ///   - onMessage: Called on the subscriber's thread for every message.
    public init(
        endpoint: RedisEndpoint, channels: [String], timeoutMilliseconds: Int = 1_000,
        backoff: RedisBackoff = RedisBackoff(),
        onState: @escaping @Sendable (Bool, RedisError?) -> Void,
        onMessage: @escaping @Sendable (String, String) -> Void
    ) {
        self.endpoint = endpoint
        self.channels = channels
        self.timeoutMilliseconds = timeoutMilliseconds
        self.backoff = backoff
        self.onState = onState
        self.onMessage = onMessage
    }

    /// Starts the thread.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "redis.subscriber"
        thread.start()
    }

    /// Stops the thread and waits for it.
    public func stop() {
        let live: RedisConnection? = lock.withLock {
            stopped = true
            return connection
        }
        live?.interrupt()
        done.wait()
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func run() {
        defer { done.signal() }
        var failures = 0
        while !isStopped {
            do throws(RedisError) {
                let live = try RedisConnection(endpoint, timeoutMilliseconds: timeoutMilliseconds)
                let proceed = lock.withLock {
                    connection = live
                    return !stopped
                }
                guard proceed else { break }
                if case .error(let message) = try live.command(["SUBSCRIBE"] + channels) {
                    throw RedisError(.reply, message)
                }
                // Confirmations for the remaining channels, then messages; no read timeout.
                for _ in 1..<max(1, channels.count) { _ = try live.nextReply() }
                try live.setTimeout(milliseconds: 0)
                failures = 0
                onState(true, nil)
                while true {
                    let reply = try live.nextReply()
                    if case .array(let parts) = reply, parts.count == 3, parts[0].text == "message",
                        let channel = parts[1].text, let payload = parts[2].text
                    {
                        onMessage(channel, payload)
                    }
                }
            } catch {
                lock.withLock { connection = nil }
                if isStopped { break }
                failures += 1
                onState(false, error)
                Thread.sleep(forTimeInterval: backoff.delay(after: failures))
            }
        }
    }
}
