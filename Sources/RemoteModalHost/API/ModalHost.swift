import Dispatch
import RemoteModalLogging
import RemoteModalReactive
import RemoteModalTransport

/// The host: owns the transport, the sessions and their modals.
///
/// All host state lives on one serial executor (``executor``); flows started from
/// ``sessions`` run there too, so they need no locks.
public final class ModalHost: Sendable {
    let core: HostCore

    /// Creates a host on a transport.
    /// - Parameters:
    ///   - configuration: Limits and policies.
    ///   - transport: The wire (a ``/RemoteModalWebSocket/WebSocketTransport``, or an in-memory one in tests).
    ///   - clock: Timers (hello timeout, retention, modal timeouts); defaults to a wall
    ///     clock on a timer queue (timers hop onto the executor). Tests pass a `TestScheduler`.
    ///   - logger: Where session events are logged.
    public init(
        configuration: ModalHostConfiguration = ModalHostConfiguration(), transport: any HostTransport,
        clock: (any SchedulerType)? = nil, logger: Logger = Logger(label: "host")
    ) {
        let executor = transport.executor ?? DispatchQueueExecutor()
        core = HostCore(
            configuration: configuration, transport: transport,
            clock: clock ?? SerialDispatchQueueScheduler(label: "remote-modal.timers"), executor: executor,
            logger: logger)
    }

    /// Starts the transport.
    /// - Throws: When the transport cannot start.
    public func start() throws { try core.start() }

    /// New sessions, on the host executor: start each session's flows here.
    public var sessions: Observable<Session> { core.newSessions.asObservable() }

    /// The host's executor as a scheduler, for flows that must hop onto it
    /// (`observe(on: host.executor)`): the transport's service loop, or the host's queue.
    /// Work there must not block: move slow work off it with `subscribe(on:)`.
    public var executor: any SchedulerType { HostExecutorScheduler(executor: core.executor, clock: core.clock) }

    /// The metrics page (`/metrics`), Prometheus text format.
    public var metricsText: String { core.metrics.render(transport: core.transport.stats) }

    /// Adds a dynamic HTTP route for paths starting with `prefix` (for example the
    /// web-authentication callback). Routes run on the transport thread.
    /// - Parameters:
    ///   - prefix: The path prefix.
    ///   - route: The handler; `nil` passes the request on.
    public func addRoute(prefix: String, _ route: @escaping HTTPRoute) {
        core.addRoute(prefix: prefix, route)
    }

    /// Waits until the host has processed everything queued so far (tests, shutdown).
    public func barrier() { core.onExecutor {} }

    /// Fails every pending modal with `hostShutdown`, sends `dismiss` `shutdown`, ends the
    /// sessions, then closes every connection with 1001 and stops the transport.
    public func shutdown() {
        core.onExecutor { core.shutdownOnExecutor() }
        core.transport.stop()
    }

    /// Releasing the host shuts it down (idempotent), which also ends the sessions and
    /// breaks the references between them and the host.
    deinit {
        core.onExecutor { core.shutdownOnExecutor() }
        core.transport.stop()
    }
}
