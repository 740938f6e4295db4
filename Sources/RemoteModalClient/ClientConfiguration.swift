import RemoteModalProtocol

/// When to try again, and the watchdogs. Backoff is exponential with full jitter (the
/// jitter itself is injected into `ClientStateMachine`).
public struct ReconnectPolicy: Sendable, Equatable {
    /// The first delay's ceiling, in seconds.
    public var base: Double
    /// The longest delay, in seconds.
    public var cap: Double
    /// The longest delay while the host is away after a 1001 (it is restarting).
    public var hostLeftCap: Double
    /// The shortest delay after a 1013 or an HTTP 503 (the host asked to come back later).
    public var busyFloor: Double
    /// Seconds from an attempt's start to its `welcome` before it counts as failed.
    public var welcomeTimeout: Double
    /// Seconds of silence after an answer or an upload chunk before the link counts as dead.
    public var replyTimeout: Double
    /// Seconds a resume may take to bring the host's state (controls, presents).
    public var resyncTimeout: Double
    /// The input throttle: the least seconds between two `input` messages of one alert.
    public var inputInterval: Double

    /// Creates a policy (the defaults are the browser page's).
    /// - Parameters:
    ///   - base: The first delay's ceiling.
    ///   - cap: The longest delay.
    ///   - hostLeftCap: The longest delay after a 1001.
    ///   - busyFloor: The shortest delay after a 1013 or a 503.
    ///   - welcomeTimeout: The welcome watchdog.
    ///   - replyTimeout: The reply watchdog.
    ///   - resyncTimeout: The resume's re-sent state.
    ///   - inputInterval: The input throttle.
    public init(
        base: Double = 0.5, cap: Double = 6, hostLeftCap: Double = 2, busyFloor: Double = 1,
        welcomeTimeout: Double = 10, replyTimeout: Double = 10, resyncTimeout: Double = 2, inputInterval: Double = 0.1
    ) {
        self.base = base
        self.cap = cap
        self.hostLeftCap = hostLeftCap
        self.busyFloor = busyFloor
        self.welcomeTimeout = welcomeTimeout
        self.replyTimeout = replyTimeout
        self.resyncTimeout = resyncTimeout
        self.inputInterval = inputInterval
    }

    /// The delay before the next attempt.
    /// - Parameters:
    ///   - failures: Failures in a row so far (1 after the first).
    ///   - random: A number in 0..<1.
    ///   - ceiling: A lower cap (after a 1001), if any.
    /// - Returns: A number in `0...min(cap, base * 2^(failures-1))`.
    public func delay(failures: Int, random: Double, ceiling: Double? = nil) -> Double {
        let exponent = Double(min(max(0, failures - 1), 30))
        let top = min(ceiling ?? cap, cap, base * pow2(exponent))
        return top * min(max(random, 0), 1)
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}

/// The bounds on everything a host can make a client hold. A hostile host meets them and
/// is skipped or refused, never followed into unbounded memory.
public struct ClientLimits: Sendable, Equatable {
    /// The longest text frame kept (UTF-8 bytes); longer ones are skipped. 2 MiB: a mail
    /// composer's attachments may reach 768 KiB decoded, about 1 MiB of base64.
    public var messageBytes: Int
    /// The most modals shown at once (the host's own pending limit is 64); a `present` past
    /// it is answered `failure` `failed`.
    public var shownModals: Int
    /// The most answers kept for their `dismiss`; past it the oldest is dropped (and said).
    public var outbox: Int
    /// The most chunks in flight whatever the host's `uploadWindow` says.
    public var uploadWindow: Int
    /// The bytes per upload chunk (the protocol's most: 32 KiB).
    public var chunkBytes: Int
    /// Bytes of host frames a driver queues before the machine handled them; past it the
    /// driver drops the link and resumes.
    public var queuedBytes: Int
    /// Host frames a driver queues before the machine handled them, whatever their size; past
    /// it the driver drops the link and resumes. Small frames cost their handling, not their
    /// bytes: 32,768 is about a second's work, so a flood's backlog ends soon after it.
    public var queuedFrames: Int
    /// Host frames a link may deliver in a second, sustained (a bucket of this many, refilled
    /// at this many a second); past it the driver drops the link and resumes, as past
    /// `queuedFrames`. A client that keeps up with a flood never fills its queue: the backlog
    /// waits in the sockets' buffers instead and is handled for seconds after the flood; this
    /// bound ends it. 8,192: a host's busiest honest stream, one `uploadAck` per 32 KiB chunk,
    /// stays under it up to 256 MiB/s.
    public var framesPerSecond: Int

    /// Creates the limits.
    /// - Parameters:
    ///   - messageBytes: The longest frame kept.
    ///   - shownModals: The most modals shown.
    ///   - outbox: The most kept answers.
    ///   - uploadWindow: The most chunks in flight.
    ///   - chunkBytes: Bytes per chunk.
    ///   - queuedBytes: Bytes of frames a driver queues.
    ///   - queuedFrames: Frames a driver queues.
    ///   - framesPerSecond: Frames a link delivers in a second, sustained.
    public init(
        messageBytes: Int = 2 * 1_048_576, shownModals: Int = 64, outbox: Int = 64, uploadWindow: Int = 32,
        chunkBytes: Int = 32_768, queuedBytes: Int = 8 * 1_048_576, queuedFrames: Int = 32_768,
        framesPerSecond: Int = 8_192
    ) {
        self.messageBytes = messageBytes
        self.shownModals = shownModals
        self.outbox = outbox
        self.uploadWindow = uploadWindow
        self.chunkBytes = chunkBytes
        self.queuedBytes = queuedBytes
        self.queuedFrames = queuedFrames
        self.framesPerSecond = framesPerSecond
    }

    /// The defaults.
    public static let `default` = ClientLimits()
}

/// Who the client is and what it shows: what goes into its `hello`.
public struct ClientConfiguration: Sendable, Equatable {
    /// The `client` object (kind, name, group).
    public var client: ClientDescription
    /// The kinds it shows (`alert`, `custom:signature`, ...).
    public var capabilities: [String]
    /// The access token, if the host wants one. Never logged.
    public var token: String?
    /// Backoff and watchdogs.
    public var policy: ReconnectPolicy
    /// Bounds.
    public var limits: ClientLimits
    /// Whether upload chunks go as binary frames (raw bytes after a small header) to a host
    /// whose `welcome` offers `binaryUploads` (docs/protocol.md, section 7, "Binary chunks");
    /// otherwise, and always when `false`, as base64 in text. A link that cannot send binary
    /// frames (``ClientLink/sendsBinaryFrames``) turns it off.
    public var binaryUploads = true

    /// Every built-in kind.
    public static let allKinds = [
        "alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker", "mediaPicker",
    ]

    /// Creates a configuration.
    /// - Parameters:
    ///   - client: Who the client is.
    ///   - capabilities: The kinds it shows.
    ///   - token: The access token.
    ///   - policy: Backoff and watchdogs.
    ///   - limits: Bounds.
    public init(
        client: ClientDescription, capabilities: [String] = ClientConfiguration.allKinds, token: String? = nil,
        policy: ReconnectPolicy = ReconnectPolicy(), limits: ClientLimits = .default
    ) {
        self.client = client
        self.capabilities = capabilities
        self.token = token
        self.policy = policy
        self.limits = limits
    }
}
