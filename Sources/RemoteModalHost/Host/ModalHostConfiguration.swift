import RemoteModalProtocol

/// The host's limits and policies; every default is the one docs/protocol.md names.
public struct ModalHostConfiguration: Sendable {
    /// How long a session outlives its last connection, in seconds.
    public var retentionSeconds: Double = 60
    /// How long a new connection may take to send `hello`, in seconds.
    public var helloTimeoutSeconds: Double = 10
    /// The heartbeat offered in `welcome` (clients then `ping` after a silence and the host
    /// answers `pong`); `nil` offers none, as hosts before it did. The host keeps no timer
    /// for it: its cost is one `pong` per `ping`.
    public var heartbeat: Heartbeat? = .standard
    /// The most modals pending at once in one session; more fail with `tooManyPending`.
    public var maxPendingModalsPerSession = 64
    /// Messages a second a connection may send on average.
    public var messagesPerSecond: Double = 100
    /// Messages a connection may send in a burst.
    public var messageBurst: Double = 200
    /// Errors in a row after which a connection is closed with 1008.
    public var maxConsecutiveErrors = 20
    /// The most upload chunks a client keeps unacknowledged (`present.uploadWindow`); a
    /// client past it gets `rate_limited` and the chunk is not stored.
    public var uploadWindow = 8
    /// Whether `welcome` offers `binaryUploads`: upload chunks taken in binary frames, raw
    /// bytes after a small JSON header, as well as base64 in text (docs/protocol.md, section 7,
    /// "Binary chunks"). `false` refuses binary frames with `bad_message`, as hosts before it.
    public var binaryUploads = true
    /// Upload bytes a second one connection may send to pending pickers, on average.
    /// Upload chunks are paced by this budget (acknowledgements are held back while it is
    /// spent), not by ``messagesPerSecond``.
    public var uploadBytesPerSecond = 32 * 1_048_576
    /// Bytes of uploads held in memory across all sessions; past it, chunks go to spool files.
    public var maxUploadMemoryBytes = 64 * 1_048_576
    /// Bytes of uploads in progress across the host (the declared sizes of files being
    /// received, in memory or spooled); a file that would pass it is refused with
    /// `upload_invalid` "host upload budget exhausted".
    public var maxUploadSpoolBytes = 1_024 * 1_048_576
    /// Bytes of uploads in progress one client address may hold (declared sizes), so one
    /// client cannot take the whole host budget; `upload_invalid` past it.
    public var maxUploadBytesPerAddress = 128 * 1_048_576
    /// An upload whose file gets no chunk for this long loses its bytes and its share of
    /// the budgets (the client may start it again); seconds.
    public var uploadStallSeconds: Double = 60
    /// The slowest a file in progress may move, in bytes a second on average from its first
    /// chunk, once `uploadStallSeconds` have passed: a file that falls behind loses its bytes
    /// and its share of the budgets, so a reservation cannot be held by trickling a chunk
    /// now and then. 0: no minimum. Default 16 KiB/s (128 kbit/s).
    public var uploadMinimumBytesPerSecond: Double = 16_384
    /// The folder for spool files, or `nil` for a folder of this process's own under the
    /// system's temporary directory. Spool files in it are removed at start and at shutdown.
    public var spoolDirectory: String?
    /// The most sessions alive at once (connected or retained). Past it a new session
    /// first evicts the oldest retained one (nothing pending first); with none to evict,
    /// the connection is closed 1013 "host at session capacity".
    public var maxSessions = 10_000
    /// The most sessions alive at once from one client address (see
    /// ``/RemoteModalTransport/ConnectionInfo/clientAddress``). Past it the address's oldest retained session is
    /// evicted; with none, close 1013 "too many sessions from this address".
    public var maxSessionsPerAddress = 64
    /// The most sessions kept without a connection (retained for resume). Past it the
    /// oldest retained session is ended early, those with nothing pending first.
    public var maxRetainedSessions = 2_000
    /// Microseconds of `hello` handling (sessions created or resumed, their flows started)
    /// one turn of the host's loop may spend; the hellos past it wait for later turns,
    /// served round robin by client address, so that a burst of new sessions from some
    /// addresses delays other clients' messages by at most about this much. 0: no bound.
    public var helloMicrosecondsPerTurn = 1_000
    /// Token grants (`--token-file`): each token's name and groups. With grants (or
    /// ``accessToken``) a `hello` without a known token is refused.
    public var tokenGrants: [TokenGrant] = []
    /// The access token clients must send in `hello`, or `nil` for none.
    public var accessToken: String?
    /// The public base URL of the host (`http://127.0.0.1:8080`), for callback URLs.
    /// Behind a load balancer, the balancer's URL.
    public var publicBaseURL = "http://127.0.0.1:8080"
    /// This host's name among several behind a load balancer, or `nil`. With a name, web
    /// authentication callbacks use `/auth/NAME/callback/NONCE`, so the balancer can send
    /// the identity provider's redirect to the host that is waiting for it.
    public var instance: String?
    /// The cluster this host joins (`--cluster redis://...`), or `nil` for a host on its own.
    /// With a cluster, group presenters and presenters for a session connected elsewhere
    /// reach every host (docs/deployment.md).
    public var cluster: ClusterConfiguration?
    /// Gives memory freed by ended sessions back to the operating system, or `nil` to
    /// leave it to the allocator. Called on the host's executor at most every 10 s, and
    /// only after sessions have ended (a flood's memory otherwise stays with the process).
    /// The host library links no C library for this: `modal-host` passes glibc's
    /// `malloc_trim(0)`.
    public var returnFreedMemory: (@Sendable () -> Void)?

    /// The path prefix of this host's web authentication callbacks.
    public var callbackPathPrefix: String { instance.map { "/auth/\($0)/callback/" } ?? "/auth/callback/" }

    /// The path prefix of this host's short sign-in links (`/s/CODE`, or `/auth/NAME/s/CODE`
    /// behind a balancer): the address a web authentication modal shows, redirecting to the
    /// provider's long authorization URL, so that its QR code fits a small terminal.
    public var shortLinkPathPrefix: String { instance.map { "/auth/\($0)/s/" } ?? "/s/" }
    /// Wrong short-link codes one client address may try within a minute; past them it gets
    /// `429` for every short link for `shortLinkLockoutSeconds` (codes have 48 bits, but live
    /// ones are few and open for minutes: guessing must not be free). 0: no limit.
    public var shortLinkMissesPerMinute = 20
    /// How long an address that tried too many wrong short-link codes is answered `429`.
    public var shortLinkLockoutSeconds: Double = 300

    /// Creates the default configuration.
    public init() {}
}
