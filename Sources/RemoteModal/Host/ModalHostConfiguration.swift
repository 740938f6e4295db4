/// The host's limits and policies; every default is the one PROTOCOL.md names.
public struct ModalHostConfiguration: Sendable {
    /// How long a session outlives its last connection, in seconds.
    public var retentionSeconds: Double = 60
    /// How long a new connection may take to send `hello`, in seconds.
    public var helloTimeoutSeconds: Double = 10
    /// The most modals pending at once in one session; more fail with `tooManyPending`.
    public var maxPendingModalsPerSession = 64
    /// Messages a second a connection may send on average.
    public var messagesPerSecond: Double = 100
    /// Messages a connection may send in a burst.
    public var messageBurst: Double = 200
    /// Errors in a row after which a connection is closed with 1008.
    public var maxConsecutiveErrors = 20
    /// The access token clients must send in `hello`, or `nil` for none.
    public var accessToken: String?
    /// The public base URL of the host (`http://127.0.0.1:8080`), for callback URLs.
    /// Behind a load balancer, the balancer's URL.
    public var publicBaseURL = "http://127.0.0.1:8080"
    /// This host's name among several behind a load balancer, or `nil`. With a name, web
    /// authentication callbacks use `/auth/NAME/callback/NONCE`, so the balancer can send
    /// the identity provider's redirect to the host that is waiting for it.
    public var instance: String?

    /// The path prefix of this host's web authentication callbacks.
    public var callbackPathPrefix: String { instance.map { "/auth/\($0)/callback/" } ?? "/auth/callback/" }

    /// Creates the default configuration.
    public init() {}
}
