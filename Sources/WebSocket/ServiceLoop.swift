import CLibWebSockets
import Foundation
import Locking
import Logging
import Synchronization

/// What a connection looked like when it opened.
public struct ConnectionInfo: Sendable {
    /// The request path of the upgrade (server side) or the URL path (client side).
    public let path: String
    /// The `Origin` header of the upgrade, if any.
    public let origin: String?
    /// The TCP peer's address (a proxy's, behind one).
    public let peerAddress: String
    /// The address the client is counted under: the peer, or the right-most untrusted
    /// `X-Forwarded-For` entry when the peer is a trusted proxy (see
    /// `AdmissionPolicy.clientAddress`). Per-address limits key on this.
    public let clientAddress: String
    /// The negotiated subprotocol, if any.
    public let subprotocol: String?

    /// Creates connection facts (transports and tests).
    /// - Parameters:
    ///   - path: The request path.
    ///   - origin: The `Origin` header.
    ///   - peerAddress: The peer's address.
    ///   - clientAddress: The resolved client address; `nil` means the peer's.
    ///   - subprotocol: The negotiated subprotocol.
    public init(
        path: String, origin: String?, peerAddress: String, clientAddress: String? = nil, subprotocol: String?
    ) {
        self.path = path
        self.origin = origin
        self.peerAddress = peerAddress
        self.clientAddress = clientAddress ?? peerAddress
        self.subprotocol = subprotocol
    }
}

/// The events a loop reports. Every closure runs on the loop's service thread and must
/// not block: hand work to another queue.
struct LoopHandlers: Sendable {
    var opened: @Sendable (ConnectionID, ConnectionInfo) -> Void = { _, _ in }
    var message: @Sendable (ConnectionID, WebSocketMessage) -> Void = { _, _ in }
    var closed: @Sendable (ConnectionID, CloseCode, String) -> Void = { _, _, _ in }
    var connectFailed: @Sendable (ConnectionID, String) -> Void = { _, _ in }
    var route: HTTPRoute = { _ in nil }
}

/// Counters kept by the transport, for `/metrics`.
public struct TransportStats: Sendable, Equatable {
    /// Connections open now.
    public var openConnections = 0
    /// Connections accepted since start.
    public var acceptedConnections = 0
    /// Upgrades refused (origin, subprotocol, path, host, connection limits).
    public var refusedUpgrades = 0
    /// Refused upgrades and HTTP requests by reason: `path`, `host`, `origin`,
    /// `subprotocol`, `connection_limit`, `address_limit`, `stopping`, `metrics_auth`.
    public var refusals: [String: Int] = [:]
    /// Connections closed for an oversized message (1009).
    public var oversizedMessages = 0
    /// Connections closed because their outgoing queue overflowed (1008).
    public var slowConsumers = 0
    /// Messages received.
    public var messagesReceived = 0
    /// Messages sent.
    public var messagesSent = 0

    /// All counters at zero.
    public init() {}
}

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
        case client(caFile: String?)
    }

    struct ClientConnectRequest {
        let id: ConnectionID
        let url: ParsedURL
        let subprotocol: String?
        let origin: String?
    }

    private struct Shared {
        var queues: [ConnectionID: OutgoingQueue] = [:]
        var wake: [ConnectionID] = []
        var connects: [ClientConnectRequest] = []
        var slowConsumers: [ConnectionID] = []
        var stopping = false
        var forceExit = false
        var stats = TransportStats()
    }

    let role: Role
    let handlers: LoopHandlers
    let logger: Logger
    private let shared = Locked(Shared())
    private let nextID = Atomic<UInt64>(1)
    private let queueLimit: Int
    private let maxMessageBytes: Int
    private let exited = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)
    private let contextPointer = Locked<ContextHandle?>(nil)
    private let boundPort = Atomic<Int>(0)
    /// `pthread_self()` of the service thread, so calls made on it skip the wake-up.
    private let serviceThreadID = Atomic<UInt>(0)

    // Service-thread state (see the type's invariant).
    private var serviceThreadWSIs: [ConnectionID: OpaquePointer] = [:]
    private var serviceThreadAssemblers: [ConnectionID: MessageAssembler] = [:]
    private var serviceThreadPeerClose: [ConnectionID: (CloseCode, String)] = [:]
    private var serviceThreadLocalClose: [ConnectionID: (CloseCode, String)] = [:]
    private var serviceThreadInfo: [ConnectionID: ConnectionInfo] = [:]
    private var serviceThreadScratch: UnsafeMutableRawBufferPointer = .allocate(byteCount: 0, alignment: 16)
    private var serviceThreadExit = false
    /// Open WebSocket connections by client address (server role).
    private var serviceThreadAddressCounts: [String: Int] = [:]
    private var serviceThreadClientAddress: [ConnectionID: String] = [:]
    private let staticFiles: StaticFiles?
    /// `maxConnections` lowered to what the open-file limit allows (set at start).
    private var effectiveMaxConnections = Int.max
    private let trustedProxies: Set<String>
    private let allowedHosts: AdmissionPolicy.AllowedHosts?

    // C storage that must outlive the context.
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>
    private var cStrings: [UnsafeMutablePointer<CChar>] = []

    init(role: Role, handlers: LoopHandlers, logger: Logger) {
        self.role = role
        self.handlers = handlers
        self.logger = logger
        let name: String
        switch role {
        case .server(let configuration):
            queueLimit = configuration.outgoingQueueLimitBytes
            maxMessageBytes = configuration.maxMessageBytes
            staticFiles = configuration.webRoot.map(StaticFiles.init(root:))
            name = configuration.subprotocol
            trustedProxies = Set(configuration.trustedProxies)
            allowedHosts = AdmissionPolicy.AllowedHosts(
                bindAddress: configuration.host, publicHost: configuration.publicHost,
                names: configuration.allowedHosts)
        case .client:
            queueLimit = 64 * 1_048_576
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
        protocols[0].per_session_data_size = 0
        protocols[0].rx_buffer_size = 0
        retryPolicy = .allocate(capacity: 1)
        retryPolicy.initialize(to: lws_retry_bo_t())
    }

    deinit {
        protocols.deallocate()
        retryPolicy.deallocate()
        free(protocolName)
        for string in cStrings { free(string) }
        serviceThreadScratch.deallocate()
    }

    private func keep(_ string: String) -> UnsafePointer<CChar> {
        let copy = strdup(string)!
        cStrings.append(copy)
        return UnsafePointer(copy)
    }

    // MARK: Start and stop

    /// Creates the context on a new service thread and waits until it listens.
    func start() throws {
        let failure = Locked<(any Error)?>(nil)
        let thread = Thread { [self] in
            serviceThreadID.store(UInt(pthread_self()), ordering: .releasing)
            do {
                let context = try createContext()
                contextPointer.withLock { $0 = ContextHandle(pointer: context) }
                started.signal()
                while !serviceThreadExit {
                    if lws_service(context, 0) < 0 { break }
                }
                contextPointer.withLock { $0 = nil }
                lws_context_destroy(context)
            } catch {
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

    private func createContext() throws -> OpaquePointer {
        var info = lws_context_creation_info()
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options = rm_option_no_system_states() | rm_option_disable_ipv6()
        info.gid = -1
        info.uid = -1
        switch role {
        case .server(let configuration):
            info.port = Int32(configuration.port)
            info.iface = keep(configuration.host)
            info.options |= rm_option_validate_utf8() | rm_option_fail_on_bind()
            info.count_threads = 1
            let budget = FileDescriptorBudget(
                openFileLimit: FileDescriptorBudget.raiseOpenFileLimit(), reserve: configuration.fileDescriptorReserve,
                maxConnections: configuration.maxConnections)
            // NB: when lws's table holds fd_limit_per_thread - 1 sockets it stops polling the
            // listen socket (accept modulation, lib/core-net/pollfd.c) and resumes when one
            // closes: so the table, not the process, runs out first and a flood cannot make
            // accept() fail with EMFILE and spin.
            info.fd_limit_per_thread = UInt32(budget.tableSize)
            effectiveMaxConnections = budget.maxConnections
            if budget.maxConnections < configuration.maxConnections {
                logger.warning(
                    "open-file limit \(budget.openFileLimit): at most \(budget.maxConnections) connections "
                        + "(asked for \(configuration.maxConnections); \(configuration.fileDescriptorReserve) "
                        + "descriptors kept for files)")
            }
            let interval = UInt16(clamping: max(1, configuration.pingIntervalSeconds))
            retryPolicy.pointee.secs_since_valid_ping = interval
            retryPolicy.pointee.secs_since_valid_hangup =
                UInt16(clamping: Int(interval) * (1 + max(1, configuration.missedPongsBeforeClose)))
            info.retry_and_idle_policy = UnsafePointer(retryPolicy)
            info.timeout_secs = 10
            if let tls = configuration.tls {
                info.options |= rm_option_do_ssl_global_init()
                info.ssl_cert_filepath = keep(tls.certificatePath)
                info.ssl_private_key_filepath = keep(tls.privateKeyPath)
                info.ssl_options_set = rm_ssl_no_legacy_protocols()
                info.ssl_cipher_list = keep(
                    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
                        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305")
            }
        case .client(let caFile):
            info.port = CONTEXT_PORT_NO_LISTEN
            info.options |= rm_option_do_ssl_global_init()
            if let caFile {
                info.client_ssl_ca_filepath = keep(caFile)
            }
            info.fd_limit_per_thread = 16_384
        }
        let context = try check(lws_create_context(&info), "lws_create_context")
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

    private func wake() {
        contextPointer.withLock { context in
            if let context { lws_cancel_service(context.pointer) }
        }
    }

    // MARK: Calls from any thread

    var stats: TransportStats { shared.withLock { $0.stats } }

    /// Queues a message; returns false when the connection is unknown or closing.
    @discardableResult
    func send(_ message: WebSocketMessage, to id: ConnectionID) -> Bool {
        enqueue(.message(message), to: id)
    }

    /// Queues a close after the frames already queued.
    func close(_ id: ConnectionID, code: CloseCode, reason: String) {
        _ = enqueue(.close(code, reason), to: id)
    }

    private var onServiceThread: Bool { UInt(pthread_self()) == serviceThreadID.load(ordering: .acquiring) }

    private func enqueue(_ item: OutgoingItem, to id: ConnectionID) -> Bool {
        // On the service thread (a handler answering at once) lws may be called directly:
        // no wake-up round trip through lws_cancel_service.
        let direct = onServiceThread
        // Only the first entry of the wake list needs a wake-up: until the service thread
        // takes the list (under the same lock), one pending lws_cancel_service covers all
        // that are added after it. Saves a syscall per message when the host sends in bursts.
        var wakeAlreadyPending = false
        let result: OutgoingQueue.AppendResult? = shared.withLock { shared in
            guard shared.queues[id] != nil else { return nil }
            let result = shared.queues[id]!.append(item)
            switch result {
            case .queued:
                if !direct {
                    wakeAlreadyPending = !shared.wake.isEmpty
                    shared.wake.append(id)
                }
            case .overflow:
                shared.wake.append(id)
                shared.slowConsumers.append(id)
                shared.stats.slowConsumers += 1
            case .closing:
                break
            }
            return result
        }
        guard let result else { return false }
        if direct, result == .queued {
            if let wsi = serviceThreadWSIs[id] { lws_callback_on_writable(wsi) }
        } else if result == .overflow || (result == .queued && !wakeAlreadyPending) {
            wake()
        }
        if result == .overflow { logger.warning("connection \(id): outgoing queue over its limit, closing with 1008") }
        return result == .queued
    }

    /// Opens a client connection; the id is valid at once, events follow on the loop.
    func connect(url: ParsedURL, subprotocol: String?, origin: String?) -> ConnectionID {
        let id = ConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
        shared.withLock {
            $0.connects.append(ClientConnectRequest(id: id, url: url, subprotocol: subprotocol, origin: origin))
        }
        wake()
        return id
    }

    // MARK: Service thread

    fileprivate func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            serviceWakeUps()
            return 0
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            let id = ConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
            rm_set_connection_id(wsi, id.rawValue)
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
        case LWS_CALLBACK_SERVER_WRITEABLE, LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeNext(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            let id = ConnectionID(rawValue: rm_connection_id(wsi))
            serviceThreadPeerClose[id] = parseClosePayload(input, length)
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

    private func serviceWakeUps() {
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
        for id in wake {
            if let wsi = serviceThreadWSIs[id] { lws_callback_on_writable(wsi) }
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
                    for id in ids { _ = shared.queues[id]?.append(.close(.goingAway, "host shutting down")) }
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

    private func opened(_ id: ConnectionID, _ wsi: OpaquePointer, _ info: ConnectionInfo) {
        serviceThreadWSIs[id] = wsi
        serviceThreadAssemblers[id] = MessageAssembler(limit: maxMessageBytes)
        if case .server = role {
            serviceThreadClientAddress[id] = info.clientAddress
            serviceThreadAddressCounts[info.clientAddress, default: 0] += 1
        }
        let stopping = shared.withLock { shared -> Bool in
            shared.queues[id] = OutgoingQueue(limit: queueLimit)
            shared.stats.openConnections += 1
            shared.stats.acceptedConnections += 1
            return shared.stopping
        }
        handlers.opened(id, info)
        if stopping { close(id, code: .goingAway, reason: "host shutting down") }
    }

    private func closed(_ id: ConnectionID) {
        guard serviceThreadWSIs.removeValue(forKey: id) != nil else { return }
        serviceThreadAssemblers[id] = nil
        serviceThreadInfo[id] = nil
        if let address = serviceThreadClientAddress.removeValue(forKey: id) {
            let remaining = (serviceThreadAddressCounts[address] ?? 1) - 1
            serviceThreadAddressCounts[address] = remaining > 0 ? remaining : nil
        }
        let (code, reason) =
            serviceThreadPeerClose.removeValue(forKey: id) ?? serviceThreadLocalClose.removeValue(forKey: id)
            ?? (.abnormal, "")
        serviceThreadLocalClose[id] = nil
        let stopping = shared.withLock { shared -> Bool in
            shared.queues[id] = nil
            shared.stats.openConnections -= 1
            return shared.stopping
        }
        handlers.closed(id, code, reason)
        if stopping, serviceThreadWSIs.isEmpty {
            serviceThreadExit = true
            if let context = contextPointer.withLock({ $0?.pointer }) { lws_cancel_service(context) }
        }
    }

    private func receive(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        let id = ConnectionID(rawValue: rm_connection_id(wsi))
        let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        // NB: fed in place through the dictionary's subscript. A local copy (`var assembler =
        // dictionary[id]`, feed, store back) shares the buffer with the dictionary's copy, so
        // every fragment copied the whole message so far: quadratic (16 MB took 16.5 s).
        guard
            let output = serviceThreadAssemblers[id]?.feed(
                bytes, isFinal: lws_is_final_fragment(wsi) != 0, binary: lws_frame_is_binary(wsi) != 0,
                remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
        else { return -1 }
        switch output {
        case .incomplete:
            return 0
        case .message(let message):
            shared.withLock { $0.stats.messagesReceived += 1 }
            handlers.message(id, message)
            return 0
        case .tooLarge:
            shared.withLock { $0.stats.oversizedMessages += 1 }
            logger.info("connection \(id): message over \(maxMessageBytes) bytes, closing with 1009")
            return closeNow(wsi, id, .messageTooBig, "message too big")
        case .invalidText:
            return closeNow(wsi, id, .invalidPayload, "invalid UTF-8")
        }
    }

    private func closeNow(_ wsi: OpaquePointer, _ id: ConnectionID, _ code: CloseCode, _ reason: String) -> Int32 {
        serviceThreadLocalClose[id] = (code, reason)
        var bytes = Array(reason.utf8.prefix(123))
        bytes.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(UInt32(code.rawValue)), buffer.baseAddress, buffer.count)
        }
        return -1
    }

    private func writeNext(_ wsi: OpaquePointer) -> Int32 {
        let id = ConnectionID(rawValue: rm_connection_id(wsi))
        let (item, more): (OutgoingItem?, Bool) = shared.withLock { shared in
            let item = shared.queues[id]?.popFirst()
            return (item, !(shared.queues[id]?.isEmpty ?? true))
        }
        switch item {
        case nil:
            return 0
        case .close(let code, let reason):
            return closeNow(wsi, id, code, reason)
        case .message(let message):
            let written: Bool
            switch message {
            case .text(let text):
                var text = text
                written = text.withUTF8 { write(wsi, UnsafeRawBufferPointer($0), LWS_WRITE_TEXT) }
            case .binary(let data):
                written = data.withUnsafeBytes { write(wsi, $0, LWS_WRITE_BINARY) }
            }
            guard written else { return -1 }
            shared.withLock { $0.stats.messagesSent += 1 }
            if more { lws_callback_on_writable(wsi) }
            return 0
        }
    }

    private func write(_ wsi: OpaquePointer, _ payload: UnsafeRawBufferPointer, _ kind: lws_write_protocol) -> Bool {
        let pre = rm_lws_pre()
        let needed = pre + payload.count
        if serviceThreadScratch.count < needed {
            serviceThreadScratch.deallocate()
            serviceThreadScratch = .allocate(byteCount: max(needed, 2 * serviceThreadScratch.count), alignment: 16)
        }
        if let source = payload.baseAddress, payload.count > 0 {
            (serviceThreadScratch.baseAddress! + pre).copyMemory(from: source, byteCount: payload.count)
        }
        let start = (serviceThreadScratch.baseAddress! + pre).assumingMemoryBound(to: UInt8.self)
        let result = lws_write(wsi, start, payload.count, kind)
        return result >= payload.count
    }

    // MARK: Upgrade checks

    private func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        guard case .server(let configuration) = role else { return 0 }
        let path = header(wsi, WSI_TOKEN_GET_URI) ?? ""
        let peer = peerAddress(wsi)
        let client = clientAddress(wsi, peer: peer)
        var refusal: (status: Int, reason: String, text: String)?
        let (open, stopping) = shared.withLock { ($0.stats.openConnections, $0.stopping) }
        if path != configuration.path {
            refusal = (404, "path", "no WebSocket endpoint at this path")
        } else if let (status, text) = hostRefusal(header(wsi, WSI_TOKEN_HOST)) {
            refusal = (status, "host", text)
        } else if stopping {
            refusal = (503, "stopping", "host shutting down")
        } else if open >= effectiveMaxConnections {
            refusal = (503, "connection_limit", "connection limit reached")
        } else if serviceThreadAddressCounts[client, default: 0] >= configuration.maxConnectionsPerAddress {
            refusal = (503, "address_limit", "too many connections from this address")
        } else if let origin = header(wsi, WSI_TOKEN_ORIGIN),
            !originAllowed(origin, host: header(wsi, WSI_TOKEN_HOST), configuration: configuration)
        {
            refusal = (403, "origin", "origin not allowed")
        } else if let offered = header(wsi, WSI_TOKEN_PROTOCOL), selectedProtocol(offered) == nil,
            !configuration.acceptsAnySubprotocol
        {
            refusal = (400, "subprotocol", "subprotocol \(configuration.subprotocol) required")
        }
        guard let refusal else { return 0 }
        shared.withLock {
            $0.stats.refusedUpgrades += 1
            $0.stats.refusals[refusal.reason, default: 0] += 1
        }
        logRefusal("upgrade from \(client) refused with \(refusal.status): \(refusal.text)")
        return refuse(wsi, status: refusal.status, text: refusal.text + "\n") ? 1 : -1
    }

    private func countRefusal(_ reason: String) {
        shared.withLock { $0.stats.refusals[reason, default: 0] += 1 }
    }

    /// Refusal lines, at most one a second (a flood must not flood the log); the count of
    /// the ones left out is added to the next.
    private var serviceThreadRefusalLog = (last: Date.distantPast, skipped: 0)

    private func logRefusal(_ line: String) {
        let now = Date()
        guard now.timeIntervalSince(serviceThreadRefusalLog.last) >= 1 else {
            serviceThreadRefusalLog.skipped += 1
            return
        }
        let skipped = serviceThreadRefusalLog.skipped
        serviceThreadRefusalLog = (now, 0)
        logger.info(skipped > 0 ? "\(line) (and \(skipped) more refusals in the last second)" : line)
    }

    /// Why a request's `Host` is refused (status and text), or `nil` when it names this server.
    private func hostRefusal(_ host: String?) -> (Int, String)? {
        guard let allowedHosts else { return nil }
        guard let host else { return (400, "Host header required") }
        return allowedHosts.allows(host) ? nil : (403, "host not allowed (see --allowed-host)")
    }

    /// The client address of a request: the peer, or `X-Forwarded-For` from a trusted proxy.
    private func clientAddress(_ wsi: OpaquePointer, peer: String) -> String {
        guard !trustedProxies.isEmpty else { return AdmissionPolicy.normalizedIP(peer) ?? peer }
        return AdmissionPolicy.clientAddress(
            peer: peer, forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR), trustedProxies: trustedProxies)
    }

    /// Writes a complete HTTP/1.1 refusal. NB: at this stage lws has not recorded the
    /// request's HTTP version and its header helpers would answer "HTTP/1.0", which strict
    /// WebSocket clients reject; so the response is written whole, by hand.
    private func refuse(_ wsi: OpaquePointer, status: Int, text: String) -> Bool {
        let reasons = [
            400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 503: "Service Unavailable",
        ]
        let head =
            "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(text.utf8.count)\r\nconnection: close\r\n\r\n"
        let bytes = Array((head + text).utf8)
        let pre = rm_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + bytes.count)
        buffer.replaceSubrange(pre..<buffer.count, with: bytes)
        return buffer.withUnsafeMutableBufferPointer { buffer in
            lws_write(wsi, buffer.baseAddress! + pre, bytes.count, LWS_WRITE_HTTP_FINAL) >= bytes.count
        }
    }

    private func selectedProtocol(_ offered: String) -> String? {
        guard case .server(let configuration) = role else { return nil }
        let names = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return names.contains(configuration.subprotocol) ? configuration.subprotocol : nil
    }

    private func originAllowed(_ origin: String, host: String?, configuration: WebSocketServerConfiguration) -> Bool {
        if configuration.allowedOrigins.contains(origin) { return true }
        guard let host, let url = URL(string: origin), let originHost = url.host else { return false }
        let scheme = configuration.tls == nil ? "http" : "https"
        guard url.scheme == scheme else { return false }
        let defaultPort = scheme == "https" ? 443 : 80
        let originAuthority = "\(originHost):\(url.port ?? defaultPort)"
        let hostAuthority = host.contains(":") ? host : "\(host):\(defaultPort)"
        return originAuthority.lowercased() == hostAuthority.lowercased()
    }

    // MARK: HTTP

    private func serveHTTP(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?) -> Int32 {
        let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
        let method =
            header(wsi, WSI_TOKEN_GET_URI) != nil ? "GET" : (header(wsi, WSI_TOKEN_HEAD_URI) != nil ? "HEAD" : "OTHER")
        var headers: [String: String] = [:]
        for (name, token) in [
            ("host", WSI_TOKEN_HOST), ("origin", WSI_TOKEN_ORIGIN), ("cookie", WSI_TOKEN_HTTP_COOKIE),
            ("user-agent", WSI_TOKEN_HTTP_USER_AGENT),
        ] {
            if let value = header(wsi, token) { headers[name] = value }
        }
        let request = HTTPRequest(method: method, path: path, queryItems: queryItems(wsi), headers: headers)
        if method == "OTHER" {
            return respond(wsi, .text(405, "method not allowed\n"), completeTransaction: true) ? 0 : -1
        }
        if path == "/healthz" {
            let stopping = shared.withLock { $0.stopping }
            let response: HTTPResponse = stopping ? .text(503, "stopping\n") : .text(200, "ok\n")
            return respond(wsi, response, completeTransaction: true) ? 0 : -1
        }
        // Every other request must name this server in Host (DNS rebinding: a page on
        // another site reaching the host through a name that resolves to it).
        if let (status, text) = hostRefusal(headers["host"]) {
            countRefusal("host")
            logRefusal("request from \(clientAddress(wsi, peer: peerAddress(wsi))) refused with \(status): \(text)")
            return respond(wsi, .text(status, text + "\n"), completeTransaction: true) ? 0 : -1
        }
        if path == "/metrics", case .server(let configuration) = role, let token = configuration.metricsToken,
            !AdmissionPolicy.bearerMatches(header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), token: token)
        {
            countRefusal("metrics_auth")
            var response = HTTPResponse.text(401, "bearer token required\n")
            response.headers = [("www-authenticate", "Bearer realm=\"metrics\"")]
            return respond(wsi, response, completeTransaction: true) ? 0 : -1
        }
        if let response = handlers.route(request) {
            return respond(wsi, response, completeTransaction: true) ? 0 : -1
        }
        guard let staticFiles else {
            return respond(wsi, .text(404, "not found\n"), completeTransaction: true) ? 0 : -1
        }
        switch staticFiles.resolve(path) {
        case .forbidden:
            return respond(wsi, .text(400, "bad path\n"), completeTransaction: true) ? 0 : -1
        case .notFound:
            return respond(wsi, .text(404, "not found\n"), completeTransaction: true) ? 0 : -1
        case .file(let file, let contentType):
            guard let descriptor = StaticFiles.openRegularFile(file) else {
                return respond(wsi, .text(404, "not found\n"), completeTransaction: true) ? 0 : -1
            }
            // lws opens the file itself (blocking): hand it the descriptor we checked, through
            // /proc/self/fd, so it opens that very regular file and nothing else.
            defer { _ = Glibc.close(descriptor) }
            let extra = "X-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\n"
            let result = lws_serve_http_file(
                wsi, "/proc/self/fd/\(descriptor)", contentType, extra, Int32(extra.utf8.count))
            if result < 0 || (result > 0 && lws_http_transaction_completed(wsi) != 0) { return -1 }
            return 0
        }
    }

    /// Writes a whole small response at once (HTTP/1.1: lws buffers what the socket
    /// does not take).
    private func respond(_ wsi: OpaquePointer, _ response: HTTPResponse, completeTransaction: Bool) -> Bool {
        let pre = rm_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + 4096 + response.body.count)
        let ok: Bool = buffer.withUnsafeMutableBufferPointer { buffer in
            let start = buffer.baseAddress! + pre
            let end = buffer.baseAddress! + pre + 4096 - 1
            var cursor: UnsafeMutablePointer<UInt8>? = start
            if lws_add_http_common_headers(
                wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &cursor, end)
                != 0
            {
                return false
            }
            for (name, value) in response.headers + [("x-content-type-options", "nosniff")] {
                let nameWithColon = name.lowercased() + ":"
                if lws_add_http_header_by_name(wsi, nameWithColon, value, Int32(value.utf8.count), &cursor, end) != 0 {
                    return false
                }
            }
            if lws_finalize_write_http_header(wsi, start, &cursor, end) != 0 { return false }
            guard !response.body.isEmpty else { return true }
            let bodyStart = cursor!
            response.body.copyBytes(to: bodyStart, count: response.body.count)
            let written = lws_write(wsi, bodyStart, response.body.count, LWS_WRITE_HTTP_FINAL)
            return written >= response.body.count
        }
        guard ok else { return false }
        if completeTransaction { return lws_http_transaction_completed(wsi) == 0 }
        return true
    }

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return decodeCString(buffer)
    }

    private func queryItems(_ wsi: OpaquePointer) -> [String: String] {
        var items: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 {
            let fragment = decodeCString(buffer)
            let parts = fragment.split(separator: "=", maxSplits: 1).map(String.init)
            if let name = parts.first { items[name] = parts.count > 1 ? parts[1] : "" }
            index += 1
        }
        return items
    }

    private func peerAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        return lws_get_peer_simple(wsi, &buffer, buffer.count) != nil ? decodeCString(buffer) : "?"
    }

    private func parseClosePayload(_ input: UnsafeMutableRawPointer?, _ length: Int) -> (CloseCode, String) {
        guard let input, length >= 2 else { return (.noStatus, "") }
        let bytes = UnsafeRawBufferPointer(start: input, count: length)
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let reason = String(decoding: bytes[2...], as: UTF8.self)
        return (CloseCode(rawValue: code), reason)
    }

    // MARK: Client connections

    private func startClientConnection(_ request: ClientConnectRequest) {
        guard let context = contextPointer.withLock({ $0?.pointer }) else { return }
        serviceThreadInfo[request.id] = ConnectionInfo(
            path: request.url.path, origin: request.origin, peerAddress: request.url.host,
            subprotocol: request.subprotocol)
        var info = lws_client_connect_info()
        let wsi: OpaquePointer? = request.url.host.withCString { host in
            request.url.path.withCString { path in
                request.url.hostHeader.withCString { hostHeader in
                    (request.origin ?? request.url.hostHeader).withCString { origin in
                        (request.subprotocol ?? "").withCString { subprotocol in
                            info.context = context
                            info.address = host
                            info.port = Int32(request.url.port)
                            info.path = path
                            info.host = hostHeader
                            info.origin = request.origin == nil ? nil : origin
                            info.protocol = request.subprotocol == nil ? nil : subprotocol
                            info.ssl_connection = request.url.secure ? rm_client_flag_use_ssl() : 0
                            info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: UInt(request.id.rawValue))
                            info.retry_and_idle_policy = nil
                            return lws_client_connect_via_info(&info)
                        }
                    }
                }
            }
        }
        if wsi == nil, serviceThreadInfo[request.id] != nil {
            // lws reports most failures through CLIENT_CONNECTION_ERROR; this one it did not.
            serviceThreadInfo[request.id] = nil
            handlers.connectFailed(request.id, "lws_client_connect_via_info failed")
        }
    }
}

/// The C callback for every libwebsockets event; recovers its loop from the context.
private func serviceLoopCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return wsi.map { lws_callback_http_dummy($0, reason, user, input, length) } ?? 0
    }
    let loop = Unmanaged<ServiceLoop>.fromOpaque(owner).takeUnretainedValue()
    return loop.handle(wsi, reason, user, input, length)
}

/// Decodes a NUL-terminated UTF-8 buffer.
private func decodeCString(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// The context pointer, shared with other threads only so they can call
/// `lws_cancel_service` (the one lws function that is safe off the service thread).
private struct ContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
