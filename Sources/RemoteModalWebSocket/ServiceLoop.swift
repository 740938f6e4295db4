import CRemoteModalLibEV
import CRemoteModalLibWebSockets
import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
import Synchronization

/// One libwebsockets context and the thread that services it: the single place where
/// `lws_*` functions are called.
///
/// Threads: `lws_service` and every `lws_*` call run on the service thread. Other
/// threads only touch `shared` (under its mutex) and call `lws_cancel_service` to wake
/// the service thread, which then drains the wake list and asks for `WRITEABLE`.
///
/// Ownership: the context's user pointer is an unretained reference to this loop. The
/// service thread's closure retains the loop until the thread has destroyed the context,
/// so the pointer never outlives the object. Connection ids (integers) are stored in
/// each wsi's opaque pointer; no Swift reference is ever stored in C memory.
///
/// `@unchecked Sendable` invariant: the `serviceThread*` properties are read and written
/// only on the service thread (inside `lws_service` callbacks or the thread's body);
/// everything else is immutable or inside `shared`.
final class ServiceLoop: @unchecked Sendable {
    enum Role {
        case server(WebSocketServerConfiguration)
        case client(caFile: String?, eventLoop: EventLoopBackend)
    }

    struct ClientConnectRequest {
        let id: ConnectionID
        let url: ParsedURL
        let subprotocol: String?
        let origin: String?
        /// The local address to connect from (`iface`), or `nil` for the route's.
        let localAddress: String?
    }

    struct Shared {
        var queues: [ConnectionID: OutgoingQueue] = [:]
        var wake: [ConnectionID] = []
        var connects: [ClientConnectRequest] = []
        var slowConsumers: [ConnectionID] = []
        var stopping = false
        var forceExit = false
        var stats = TransportStats()
        /// Bytes queued across every connection (bounded by `maxOutgoingBytes`).
        var budget = OutgoingBudget()
    }

    let role: Role
    /// What the service thread waits on (`EventLoopBackend`).
    let eventLoop: EventLoopBackend
    let handlers: LoopHandlers
    /// Application work that runs on this loop (the host's executor), if any.
    let executor: LoopExecutor?
    let logger: Logger
    let shared = Locked(Shared())
    let nextID = Atomic<UInt64>(1)
    let queueLimit: Int
    /// `SO_SNDBUF` set on each accepted connection (0: the kernel's own, which grows to
    /// megabytes on a connection whose client stopped reading).
    let socketSendBufferBytes: Int
    /// The host-wide bound on bytes waiting to be sent.
    let maxOutgoingBytes: Int
    let maxMessageBytes: Int
    let exited = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    let contextPointer = Locked<ContextHandle?>(nil)
    let boundPort = Atomic<Int>(0)
    /// `pthread_self()` of the service thread, so calls made on it skip the wake-up.
    let serviceThreadID = Atomic<UInt>(0)
    /// The service thread's kernel id, 0 before it runs: what a leak check looks for in
    /// /proc/self/task after stop().
    let serviceThreadKernelID = Atomic<Int32>(0)

    // Service-thread state (see the type's invariant).
    var serviceThreadWSIs: [ConnectionID: OpaquePointer] = [:]
    var serviceThreadIncoming: [ConnectionID: IncomingState] = [:]
    /// The server's keepalive (`ServiceLoop+Keepalive`); nil for clients, which keep lws's.
    var serviceThreadKeepalive: KeepaliveSchedule?
    /// When the context was created: the keepalive's clock counts from it.
    var serviceThreadClockStart: UInt64 = 0
    var serviceThreadPeerClose: [ConnectionID: (CloseCode, String)] = [:]
    var serviceThreadLocalClose: [ConnectionID: (CloseCode, String)] = [:]
    /// Closes decided while receiving, handed to lws at the connection's next `WRITEABLE`.
    var serviceThreadCloseAtWriteable: [ConnectionID: (CloseCode, String)] = [:]
    /// Connections whose close has begun (ours, the peer's, or lws's own after a protocol
    /// error): nothing more is written to them; lws finishes the close handshake.
    var serviceThreadClosing: Set<ConnectionID> = []
    /// Connections whose input is paused while lws holds bytes of ours they have not taken.
    var serviceThreadRxPaused: Set<ConnectionID> = []
    var serviceThreadInfo: [ConnectionID: ConnectionInfo] = [:]
    var serviceThreadScratch: UnsafeMutableRawBufferPointer = .allocate(byteCount: 0, alignment: 16)
    /// The frames of one send, kept between WRITEABLEs for its capacity.
    var serviceThreadBatch: [OutgoingPayload] = []
    var serviceThreadExit = false
    /// The libev loop the context runs on (`.libev`); the service thread creates, turns and
    /// destroys it, after the context.
    var serviceThreadEventLoop: OpaquePointer?
    /// Connections whose write is fed to libev at the end of this turn (`invokeFedWrites`).
    var serviceThreadFeeds: [ConnectionID] = []
    /// lws's once-a-second timer on libev (`rm_lws_heartbeat_start`); C memory, freed in deinit.
    let heartbeat: UnsafeMutablePointer<rm_lws_heartbeat>
    /// The keepalive's paced wake-up on libev (`ServiceLoop+Keepalive`); C memory, freed in
    /// deinit.
    let keepaliveWake: UnsafeMutablePointer<rm_ev_wake>
    /// When the keepalive last looked at a batch of due connections (uptime nanoseconds).
    var serviceThreadKeepaliveBatchAt: UInt64 = 0
    /// `foreign_loops` for lws: one loop pointer (lws reads it during `lws_create_context`).
    let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Open WebSocket connections by client address (server role).
    var serviceThreadAddressCounts: [String: Int] = [:]
    var serviceThreadClientAddress: [ConnectionID: String] = [:]
    /// Accepted sockets not (yet) upgraded, with their peer, and by peer
    /// (`ServiceLoop+Sockets`). The key is lws's handle, never dereferenced.
    var serviceThreadPendingSockets: [OpaquePointer: String] = [:]
    /// Each address's half-finished requests, oldest first (at most its limit plus one).
    var serviceThreadPendingByAddress: [String: [OpaquePointer]] = [:]
    /// Each address's budget of sockets that end without an upgrade, or within
    /// `shortLivedConnectionSeconds` of it (server role).
    var serviceThreadChurn = SocketChurnBudget(perSecond: 0, burst: 1)
    /// A WebSocket connection that ends sooner than this after its upgrade is charged to its
    /// address's churn budget.
    static var shortLivedConnectionSeconds: UInt32 { 10 }
    let staticFiles: StaticFiles?
    /// `maxConnections` lowered to what the open-file limit allows (set at start).
    var effectiveMaxConnections = Int.max
    /// Accepted sockets with this descriptor number or higher are closed at once (server).
    var serviceThreadAcceptCeiling = Int32.max
    let trustedProxies: Set<String>
    let allowedHosts: AdmissionPolicy.AllowedHosts?

    // C storage that must outlive the context.
    let protocols: UnsafeMutablePointer<lws_protocols>
    let protocolName: UnsafeMutablePointer<CChar>
    let retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>
    var cStrings: [UnsafeMutablePointer<CChar>] = []

    init(role: Role, handlers: LoopHandlers, logger: Logger, executor: LoopExecutor? = nil) {
        self.role = role
        self.handlers = handlers
        self.executor = executor
        self.logger = logger
        let name: String
        switch role {
        case .server(let configuration):
            queueLimit = configuration.outgoingQueueLimitBytes
            socketSendBufferBytes = configuration.socketSendBufferBytes
            maxOutgoingBytes = configuration.maxOutgoingBytes
            maxMessageBytes = configuration.maxMessageBytes
            staticFiles = configuration.webRoot.map(StaticFiles.init(root:))
            name = configuration.subprotocol
            eventLoop = configuration.eventLoop
            trustedProxies = Set(configuration.trustedProxies)
            allowedHosts = AdmissionPolicy.AllowedHosts(
                bindAddress: configuration.host, publicHost: configuration.publicHost,
                names: configuration.allowedHosts)
        case .client(_, let backend):
            eventLoop = backend
            queueLimit = 64 * 1_048_576
            socketSendBufferBytes = 0
            maxOutgoingBytes = Int.max
            maxMessageBytes = 16 * 1_048_576
            staticFiles = nil
            trustedProxies = []
            allowedHosts = nil
            name = "remote-modal.v1"
        }
        protocolName = strdup(name)
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = serviceLoopCallback
        // NB: a few bytes of per-session data so that lws tells us, with
        // WS_SERVER_DROP_PROTOCOL, when it begins a close of its own (a client's protocol
        // error): without user space lws skips that callback, and frames written after its
        // close frame would reach the client.
        protocols[0].per_session_data_size = 8
        protocols[0].rx_buffer_size = 0
        retryPolicy = .allocate(capacity: 1)
        retryPolicy.initialize(to: lws_retry_bo_t())
        foreignLoops = .allocate(capacity: 1)
        foreignLoops.initialize(to: nil)
        heartbeat = .allocate(capacity: 1)
        heartbeat.initialize(to: rm_lws_heartbeat())
        keepaliveWake = .allocate(capacity: 1)
        keepaliveWake.initialize(to: rm_ev_wake())
        rm_ev_wake_init(keepaliveWake)
    }

    deinit {
        protocols.deallocate()
        retryPolicy.deallocate()
        foreignLoops.deallocate()
        heartbeat.deallocate()
        keepaliveWake.deallocate()
        free(protocolName)
        for string in cStrings { free(string) }
        serviceThreadScratch.deallocate()
    }

    func keep(_ string: String) -> UnsafePointer<CChar> {
        let copy = strdup(string)!
        cStrings.append(copy)
        return UnsafePointer(copy)
    }

    // MARK: Start and stop

    /// Creates the context on a new service thread and waits until it listens.
    func start() throws {
        do {
            try eventLoop.checkAvailable()
            try checkWebRoot()
        } catch {
            // No thread was started: stop() (the owner's deinit) must not wait for one.
            shared.withLock { $0.stopping = true }
            throw error
        }
        let failure = Locked<(any Error)?>(nil)
        let thread = Thread { [self] in
            serviceThreadID.store(UInt(pthread_self()), ordering: .releasing)
            serviceThreadKernelID.store(rm_kernel_thread_id(), ordering: .releasing)
            do {
                let context = try createContext()
                contextPointer.withLock { $0 = ContextHandle(pointer: context) }
                executor?.loopStarted { [weak self] in self?.wake() }
                started.signal()
                while !serviceThreadExit {
                    if let loop = serviceThreadEventLoop {
                        // One turn of libev: epoll_wait, then the callbacks of the ready sockets
                        // and due timers (lws's included); lws_cancel_service wakes it.
                        _ = rm_ev_run_once(loop)
                    } else if lws_service(context, 0) < 0 {
                        break
                    }
                    // What this turn's handlers queued on the loop runs before the next poll.
                    executor?.endOfTurn()
                    serviceKeepalive()
                    invokeFedWrites()
                }
                contextPointer.withLock { $0 = nil }
                destroy(context)
                executor?.loopExited()
            } catch {
                destroyEventLoop()
                failure.withLock { $0 = error }
                started.signal()
            }
            exited.signal()
        }
        thread.name = "lws-service"
        thread.stackSize = 1 << 20
        thread.start()
        started.wait()
        if let error = failure.withLock({ $0 }) {
            exited.wait()
            // Nothing runs any more: later stop() calls must not wait for the thread.
            shared.withLock { $0.stopping = true }
            throw error
        }
    }

    /// Destroys the context, then the loop it ran on (service thread).
    func destroy(_ context: OpaquePointer) {
        rm_lws_heartbeat_stop(heartbeat)
        lws_context_destroy(context)
        destroyEventLoop()
    }

    /// Frees the libev loop once lws no longer uses it (service thread).
    func destroyEventLoop() {
        if let loop = serviceThreadEventLoop {
            rm_ev_wake_stop(loop, keepaliveWake)
            rm_ev_loop_destroy(loop)
        }
        serviceThreadEventLoop = nil
    }

    func createContext() throws -> OpaquePointer {
        var info = lws_context_creation_info()
        if case .libev = eventLoop {
            // NB: a foreign loop (ours) rather than lws's own: lws_service on an event library
            // runs ev_run until the loop is broken, and the loop must return after each turn
            // for the executor's end-of-turn work. Not libuv: with lws 4.1's libuv glue a
            // close queued from WRITEABLE (1000 after a burst, 1001 at shutdown) reached the
            // client as a bare FIN, without its close frame.
            let loop = try check(rm_ev_loop_new(), "ev_loop_new")
            serviceThreadEventLoop = loop
            if rm_ev_backend_is_epoll(loop) == 0 { logger.warning("libev runs without epoll here") }
            foreignLoops.pointee = UnsafeMutableRawPointer(loop)
            info.foreign_loops = foreignLoops
            info.options |= rm_option_libev()
        }
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options |= rm_option_no_system_states() | rm_option_disable_ipv6()
        info.gid = -1
        info.uid = -1
        switch role {
        case .server(let configuration):
            info.port = Int32(configuration.port)
            info.iface = keep(configuration.host)
            // NB: not LWS_SERVER_OPTION_VALIDATE_UTF8. lws checks text a byte at a time (10% of
            // the host's CPU during uploads, issue 31); `MessageAssembler` checks each piece as
            // it arrives instead (`UTF8Validator`: ASCII eight bytes at a time), just as early,
            // and close reasons are checked in `parseClosePayload`.
            info.options |= rm_option_fail_on_bind()
            info.count_threads = 1
            let budget = FileDescriptorBudget(
                openFileLimit: FileDescriptorBudget.raiseOpenFileLimit(), reserve: configuration.fileDescriptorReserve,
                maxConnections: configuration.maxConnections)
            // NB: no fd_limit_per_thread. Below the open-file limit it makes lws 4.1 look every
            // ready socket up by walking its whole table (wsi_from_fd, lib/plat/unix/unix-fds.c:
            // 26% of the CPU with 10,000 idle clients held); at the limit the lookup is an index.
            // The table then cannot run out before the process does, so accepted sockets that
            // land in the top `fileDescriptorReserve` descriptors are closed at once
            // (FILTER_NETWORK_CONNECTION): a flood cannot make accept() fail with EMFILE and
            // spin, and the reserve stays free for files.
            serviceThreadAcceptCeiling = Int32(clamping: budget.acceptCeiling)
            serviceThreadChurn = SocketChurnBudget(
                perSecond: configuration.socketChurnPerAddress, burst: configuration.socketChurnBurstPerAddress)
            effectiveMaxConnections = budget.maxConnections
            if budget.maxConnections < configuration.maxConnections {
                logger.warning(
                    "open-file limit \(budget.openFileLimit): at most \(budget.maxConnections) connections "
                        + "(asked for \(configuration.maxConnections); \(configuration.fileDescriptorReserve) "
                        + "descriptors kept for files)")
            }
            // NB: a policy with no validity times, so that lws sets no keepalive timer of its
            // own (without one it would use its default, 300 s): `KeepaliveSchedule` says why.
            retryPolicy.pointee.secs_since_valid_ping = 0
            retryPolicy.pointee.secs_since_valid_hangup = 0
            info.retry_and_idle_policy = UnsafePointer(retryPolicy)
            let interval = max(1, configuration.pingIntervalSeconds)
            serviceThreadKeepalive = KeepaliveSchedule(
                pingAfter: interval, closeAfter: interval * (1 + max(1, configuration.missedPongsBeforeClose)))
            info.timeout_secs = 10
            // lws reads a connection at most `rx_buffer_size` a turn (and never more than
            // `pt_serv_buf_size`, its one buffer per thread), into a buffer of that size that
            // every connection allocates at its upgrade (lws 4.1.6's lib/roles/ws/ops-ws.c), so
            // it is paid per idle connection (docs/benchmarks.md, "Memory per idle session").
            let receiveBuffer = max(1_024, configuration.receiveBufferBytes)
            protocols[0].rx_buffer_size = receiveBuffer
            info.pt_serv_buf_size = UInt32(clamping: max(4_096, receiveBuffer))
            if let tls = configuration.tls {
                info.options |= rm_option_do_ssl_global_init()
                info.ssl_cert_filepath = keep(tls.certificatePath)
                info.ssl_private_key_filepath = keep(tls.privateKeyPath)
                info.ssl_options_set = rm_ssl_no_legacy_protocols()
                info.ssl_cipher_list = keep(
                    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
                        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305")
            }
        case .client(let caFile, _):
            info.port = CONTEXT_PORT_NO_LISTEN
            info.options |= rm_option_do_ssl_global_init()
            if let caFile {
                info.client_ssl_ca_filepath = keep(caFile)
            }
        }
        // Receive buffers from reserved address space: an idle connection's costs no memory.
        ReceiveBufferArena.install()
        guard let context = lws_create_context(&info) else {
            // lws says only that it failed; say why when it is the listening socket.
            if case .server(let configuration) = role,
                let reason = ListenProbe.refusal(host: configuration.host, port: configuration.port)
            {
                throw WebSocketError.cannotListen(address: configuration.host, port: configuration.port, reason: reason)
            }
            throw WebSocketError.call(function: "lws_create_context", result: 0)
        }
        // On libev for lws's timers (see the shim), on both for the keepalive's tick.
        rm_lws_heartbeat_start(heartbeat, context)
        serviceThreadClockStart = DispatchTime.now().uptimeNanoseconds
        if case .server = role, let vhost = lws_get_vhost_by_name(context, "default") {
            boundPort.store(Int(lws_get_vhost_listen_port(vhost)), ordering: .releasing)
        }
        return context
    }

    /// The port the server listens on (useful with port 0).
    var port: Int { boundPort.load(ordering: .acquiring) }

    /// Closes every connection with 1001, waits up to `deadline` seconds, then stops
    /// the thread and frees the context. Safe to call more than once.
    func stop(deadline: Double) {
        let first = shared.withLock { shared -> Bool in
            defer { shared.stopping = true }
            return !shared.stopping
        }
        guard first else { return }
        wake()
        if exited.wait(timeout: .now() + deadline) == .timedOut {
            shared.withLock { $0.forceExit = true }
            wake()
            exited.wait()
        }
    }

    func wake() {
        contextPointer.withLock { context in
            if let context { lws_cancel_service(context.pointer) }
        }
    }

    /// Refusal lines, at most one a second (a flood must not flood the log); the count of
    /// the ones left out is added to the next.
    var serviceThreadRefusalLog = (last: Date.distantPast, skipped: 0)

    // MARK: Service thread

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            serviceWakeUps()
            return 0
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            // lws passes the accepted descriptor in `in`; nonzero makes it close it.
            let descriptor = Int32(truncatingIfNeeded: Int(bitPattern: input))
            if descriptor >= serviceThreadAcceptCeiling - pendingEvictionMargin {
                // Two for one: the table shrinks back below the margin instead of staying at
                // its edge, where every other arrival would land in the reserve and be closed.
                evictCrowdedPendingSocket()
                evictCrowdedPendingSocket()
            }
            guard descriptor >= serviceThreadAcceptCeiling else { return admitsSocket(descriptor) ? 0 : 1 }
            countRefusal("descriptors")
            logRefusal("connection closed on arrival: descriptor \(descriptor) is in the reserve for files")
            return 1
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            recordPendingSocket(wsi)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            // A socket that ends without an upgrade costs its address (`SocketChurnBudget`).
            if let peer = releasePendingSocket(wsi) { chargeChurn(peer) }
            return 0
        case LWS_CALLBACK_RAW_ADOPT:
            // Only a CONNECT request makes lws adopt a raw socket on this server.
            return refuseConnectMethod(wsi)
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            let id = ConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
            rm_set_connection_id(wsi, id.rawValue)
            // From now on it counts as a WebSocket connection of its client address.
            releasePendingSocket(wsi)
            let peer = peerAddress(wsi)
            let info = ConnectionInfo(
                path: header(wsi, WSI_TOKEN_GET_URI) ?? "/", origin: header(wsi, WSI_TOKEN_ORIGIN),
                peerAddress: peer, clientAddress: clientAddress(wsi, peer: peer),
                subprotocol: header(wsi, WSI_TOKEN_PROTOCOL).flatMap(selectedProtocol))
            opened(id, wsi, info)
            return 0
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            let id = ConnectionID(rawValue: rm_connection_id(wsi))
            guard case .client = role else { return 0 }
            let info =
                serviceThreadInfo[id] ?? ConnectionInfo(path: "/", origin: nil, peerAddress: "", subprotocol: nil)
            opened(id, wsi, info)
            return 0
        case LWS_CALLBACK_RECEIVE, LWS_CALLBACK_CLIENT_RECEIVE:
            return receive(wsi, input, length)
        case LWS_CALLBACK_RECEIVE_PONG:
            serviceThreadIncoming[ConnectionID(rawValue: rm_connection_id(wsi))]?.liveness.heard = keepaliveClock()
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE, LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeNext(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            let id = ConnectionID(rawValue: rm_connection_id(wsi))
            let close = parseClosePayload(input, length)
            serviceThreadClosing.insert(id)
            guard let close else {
                // RFC 6455 §7.1.6: a close reason is UTF-8. Refused as lws's own check did: the
                // connection is cut without echoing the close (Autobahn 7.5.1).
                serviceThreadPeerClose[id] = (.invalidPayload, "")
                return -1
            }
            serviceThreadPeerClose[id] = close
            return 0
        case LWS_CALLBACK_WS_SERVER_DROP_PROTOCOL, LWS_CALLBACK_WS_CLIENT_DROP_PROTOCOL:
            serviceThreadClosing.insert(ConnectionID(rawValue: rm_connection_id(wsi)))
            return 0
        case LWS_CALLBACK_CLOSED, LWS_CALLBACK_CLIENT_CLOSED:
            closed(ConnectionID(rawValue: rm_connection_id(wsi)))
            return 0
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let id = ConnectionID(rawValue: rm_connection_id(wsi))
            let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
            serviceThreadInfo[id] = nil
            if serviceThreadWSIs[id] != nil {
                closed(id)
            } else {
                handlers.connectFailed(id, message)
            }
            return 0
        case LWS_CALLBACK_HTTP:
            return serveHTTP(wsi, input)
        case LWS_CALLBACK_HTTP_FILE_COMPLETION:
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    func serviceWakeUps() {
        let (wake, connects, slow, stopping, force):
            ([ConnectionID], [ClientConnectRequest], [ConnectionID], Bool, Bool) =
                shared.withLock { shared in
                    defer {
                        shared.wake.removeAll(keepingCapacity: true)
                        shared.connects.removeAll()
                        shared.slowConsumers.removeAll()
                    }
                    return (shared.wake, shared.connects, shared.slowConsumers, shared.stopping, shared.forceExit)
                }
        for request in connects { startClientConnection(request) }
        // The application's queued work first: what it sends joins this turn's writes.
        executor?.runPending()
        for id in wake {
            if let wsi = serviceThreadWSIs[id] { requestWriteable(wsi, id: id) }
        }
        for id in slow {
            // NB: a client that stopped reading may never make the socket writeable, so the
            // queued 1008 close might never be sent; cut the connection after 2 s regardless.
            if let wsi = serviceThreadWSIs[id] { lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, 2) }
        }
        if force {
            serviceThreadExit = true
        } else if stopping {
            if serviceThreadWSIs.isEmpty {
                serviceThreadExit = true
            } else {
                let ids = Array(serviceThreadWSIs.keys)
                shared.withLock { shared in
                    for id in ids {
                        _ = shared.queues[id]?.append(.close(.goingAway, "host shutting down"), budget: &shared.budget)
                    }
                }
                for id in ids {
                    if let wsi = serviceThreadWSIs[id] { lws_callback_on_writable(wsi) }
                }
            }
        }
        if serviceThreadExit, let context = contextPointer.withLock({ $0?.pointer }) {
            // Makes lws_service return so the thread can leave its loop.
            lws_cancel_service(context)
        }
    }

    /// Bounds the kernel's send buffer of an accepted connection: left alone, Linux grows it
    /// to about 4 MB on a connection whose client stopped reading, memory outside every
    /// budget of ours (252 such connections held 650 MB of kernel memory).
    func capSendBuffer(_ wsi: OpaquePointer) {
        guard socketSendBufferBytes > 0 else { return }
        let descriptor = lws_get_socket_fd(wsi)
        guard descriptor >= 0 else { return }
        var size = Int32(clamping: socketSendBufferBytes)
        if setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            logger.warning("SO_SNDBUF \(socketSendBufferBytes) refused: errno \(errno)")
        }
    }

    func opened(_ id: ConnectionID, _ wsi: OpaquePointer, _ info: ConnectionInfo) {
        let descriptor = Int32(lws_get_socket_fd(wsi))
        serviceThreadWSIs[id] = wsi
        serviceThreadIncoming[id] = IncomingState(MessageAssembler(limit: maxMessageBytes), openedAt: keepaliveClock())
        serviceThreadKeepalive?.add(id)
        if case .server = role {
            serviceThreadClientAddress[id] = info.clientAddress
            serviceThreadAddressCounts[info.clientAddress, default: 0] += 1
            capSendBuffer(wsi)
        }
        let stopping = shared.withLock { shared -> Bool in
            shared.queues[id] = OutgoingQueue(limit: queueLimit, wsi: wsi, socket: descriptor)
            shared.stats.openConnections += 1
            shared.stats.acceptedConnections += 1
            return shared.stopping
        }
        handlers.opened(id, info)
        if stopping { close(id, code: .goingAway, reason: "host shutting down") }
    }

    func closed(_ id: ConnectionID) {
        guard serviceThreadWSIs.removeValue(forKey: id) != nil else { return }
        let openedAt = serviceThreadIncoming.removeValue(forKey: id)?.openedAt
        serviceThreadInfo[id] = nil
        if let address = serviceThreadClientAddress.removeValue(forKey: id) {
            let remaining = (serviceThreadAddressCounts[address] ?? 1) - 1
            serviceThreadAddressCounts[address] = remaining > 0 ? remaining : nil
            // A connection that ends soon after its upgrade is churn too (a client opening and
            // closing sessions in a loop); one that lived is a kiosk's, and costs nothing.
            if let openedAt, keepaliveClock() &- openedAt < Self.shortLivedConnectionSeconds { chargeChurn(address) }
        }
        let (code, reason) =
            serviceThreadPeerClose.removeValue(forKey: id) ?? serviceThreadLocalClose.removeValue(forKey: id)
            ?? (.abnormal, "")
        serviceThreadLocalClose[id] = nil
        serviceThreadCloseAtWriteable[id] = nil
        serviceThreadClosing.remove(id)
        serviceThreadRxPaused.remove(id)
        let stopping = shared.withLock { shared -> Bool in
            shared.queues.removeValue(forKey: id)?.dropAll(budget: &shared.budget)
            shared.stats.openConnections -= 1
            return shared.stopping
        }
        handlers.closed(id, code, reason)
        if stopping, serviceThreadWSIs.isEmpty {
            serviceThreadExit = true
            if let context = contextPointer.withLock({ $0?.pointer }) { lws_cancel_service(context) }
        }
    }
}

/// The C callback for every libwebsockets event; recovers its loop from the context.
func serviceLoopCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return wsi.map { lws_callback_http_dummy($0, reason, user, input, length) } ?? 0
    }
    // Borrowed, not retained: the loop outlives its context, and it has weak references
    // (a side table), so each retain and release here took the runtime's slow path.
    return Unmanaged<ServiceLoop>.fromOpaque(owner)._withUnsafeGuaranteedRef {
        $0.handle(wsi, reason, user, input, length)
    }
}

/// Decodes a NUL-terminated UTF-8 buffer.
func decodeCString(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// The context pointer, shared with other threads only so they can call
/// `lws_cancel_service` (the one lws function that is safe off the service thread).
struct ContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
