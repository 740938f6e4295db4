import CRemoteModalLibEV
import CRemoteModalLibWebSockets
import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
import Synchronization

/// Sending: calls from any thread queue frames and closes; on `WRITEABLE` the service thread
/// writes what is queued for the connection (up to `batchBytes` of frames) with one send.
extension ServiceLoop {
    // MARK: Calls from any thread

    var stats: TransportStats {
        shared.withLock { shared in
            var stats = shared.stats
            stats.outgoingQueuedBytes = shared.budget.bytes
            return stats
        }
    }

    /// Queues a message; returns false when the connection is unknown or closing.
    @discardableResult
    func send(_ message: WebSocketMessage, to id: ConnectionID) -> Bool {
        enqueue(.message(OutgoingPayload(message)), to: id)
    }

    /// Queues a text message given as UTF-8 bytes (valid UTF-8, the caller's promise).
    @discardableResult
    func send(utf8 text: [UInt8], to id: ConnectionID) -> Bool {
        enqueue(.message(.utf8(text)), to: id)
    }

    /// Queues a close after the frames already queued.
    func close(_ id: ConnectionID, code: CloseCode, reason: String) {
        _ = enqueue(.close(code, reason), to: id)
    }

    var onServiceThread: Bool { UInt(pthread_self()) == serviceThreadID.load(ordering: .acquiring) }

    func enqueue(_ item: OutgoingItem, to id: ConnectionID) -> Bool {
        // On the service thread (a handler answering at once) lws may be called directly:
        // no wake-up round trip through lws_cancel_service.
        let direct = onServiceThread
        // Only the first entry of the wake list needs a wake-up: until the service thread
        // takes the list (under the same lock), one pending lws_cancel_service covers all
        // that are added after it. Saves a syscall per message when the host sends in bursts.
        var wakeAlreadyPending = false
        // One writable request per connection per turn: a queue that already held frames
        // has its request (or its wake-up) pending, and WRITEABLE takes everything queued.
        var wasEmpty = true
        var wsi: OpaquePointer?
        // Connections cut to make room in the host-wide budget (see `makeRoom`).
        var evicted: [BudgetCut] = []
        let result: OutgoingQueue.AppendResult? = shared.withLock { shared in
            guard let queue = shared.queues[id] else { return nil }
            wasEmpty = queue.isEmpty
            wsi = queue.wsi
            let result: OutgoingQueue.AppendResult
            if case .message(let message) = item,
                !Self.makeRoom(for: message, sender: id, in: &shared, budget: maxOutgoingBytes, cut: &evicted)
            {
                result = queue.overflow(reason: "host outgoing budget", budget: &shared.budget)
            } else {
                result = queue.append(item, budget: &shared.budget)
            }
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
        for cut in evicted { logger.warning("\(cut)") }
        if !evicted.isEmpty { wake() }
        guard let result else { return false }
        if direct, result == .queued {
            // NB: not written here: lws writes a pong it owes (for a ping read in this turn)
            // from WRITEABLE, before calling us, and a pong must not come after the answer to
            // the message the ping preceded (Autobahn 5.6). `requestWriteable` goes through
            // lws's WRITEABLE, at the end of this turn.
            if wasEmpty, let wsi { requestWriteable(wsi, id: id) }
        } else if result == .overflow || (result == .queued && !wakeAlreadyPending) {
            wake()
        }
        if result == .overflow { logger.warning("connection \(id): outgoing queue over its limit, closing with 1008") }
        return result == .queued
    }

    /// Asks lws for `WRITEABLE` on `wsi` (service thread) and, on libev, has it come at the
    /// end of this turn: `invokeFedWrites` feeds the socket's write event to the loop, so
    /// lws's write watcher runs before the next wait and lws handles it as a ready socket:
    /// what it owes first (a pong, bytes it kept), then our `WRITEABLE`, which writes the
    /// queue.
    ///
    /// Without the feed, a send waits for the next epoll_wait, and libev arms and disarms
    /// EPOLLOUT around it: two `epoll_ctl` and one more wait per answer (`strace -c` counted
    /// 11,123 `epoll_ctl` for 5,560 `sendto` before, none after; `docs/transport.md`). A
    /// watcher started and stopped within one turn costs libev no system call. The feed
    /// waits for the end of the turn, not for the current callback to return: what the
    /// turn's handlers and the executor send after the first message joins it in one write.
    func requestWriteable(_ wsi: OpaquePointer, id: ConnectionID) {
        lws_callback_on_writable(wsi)
        if serviceThreadEventLoop != nil { serviceThreadFeeds.append(id) }
    }

    /// Feeds the writes `requestWriteable` asked for in this turn and runs them, before the
    /// next wait. A connection closed since is skipped (ids, not pointers, are kept); one
    /// whose bytes lws still holds is not fed: its socket is full, and lws's own request for
    /// EPOLLOUT stands. Writes asked for while these run are fed in the same call.
    func invokeFedWrites() {
        guard let loop = serviceThreadEventLoop else { return }
        while !serviceThreadFeeds.isEmpty {
            let ids = serviceThreadFeeds
            serviceThreadFeeds.removeAll(keepingCapacity: true)
            var fed = false
            for id in ids {
                guard let wsi = serviceThreadWSIs[id], lws_partial_buffered(wsi) == 0 else { continue }
                rm_ev_feed_write(loop, lws_get_socket_fd(wsi))
                fed = true
            }
            if fed { _ = rm_ev_invoke_pending(loop) }
        }
    }

    /// Makes room for `payload` in the host-wide outgoing budget: while it would be
    /// exceeded, a connection is cut with 1008 and its frames dropped. Returns false when
    /// the sender itself is the one to cut.
    ///
    /// Who is cut: first a stalled connection, one whose socket has been full (lws holds
    /// bytes of ours it could not send) for `stallObservationNanoseconds` and whose client
    /// has taken nothing since it filled (its TCP acknowledged no byte more:
    /// `SocketProgress`) while its socket holds bytes it has not acknowledged, the one full
    /// the longest first; then any
    /// other, a slow reader included, the one holding the most first: its bytes no other
    /// connection shares, what lws keeps for it, and what its socket holds that the client
    /// has not acknowledged (kernel memory). Never the sender on a tie. A connection whose
    /// cut would give nothing back (all it holds is shared with connections that keep it)
    /// is passed over.
    ///
    /// Simpler rules failed against attacks. What the host sees of its own queues cannot
    /// tell a slow reader from a client that stopped, nor a prompt reader whose socket is
    /// full for a millisecond from one full for good; the kernel's count of acknowledged
    /// bytes can, as a client that does not read cannot make it move. The most bytes alone
    /// let a burst to many connections at once cut a reader, which held as much at that
    /// instant as clients that had stopped reading long before (whose bytes sat in their
    /// sockets); "full the longest" let a slow reader be cut for a client that stopped a
    /// moment later holding eight times its bytes; ranking by bytes before behaviour let a
    /// prompt reader whose socket was full for a few milliseconds (lws holding a 55 KB
    /// status) be cut before stalled clients; counting a session's broadcast in each
    /// holder's bytes, with "heard from least recently" on a tie, cut the quiet second tab
    /// of a reading session (freeing nothing: its first tab held the same buffer) for
    /// chatty stalled clients; cutting whoever asked next let clients that stop reading get
    /// healthy ones cut.
    static func makeRoom(
        for payload: OutgoingPayload, sender: ConnectionID, in shared: inout Shared, budget: Int,
        cut: inout [BudgetCut], observe: (OutgoingQueue) -> ClientProgress = ClientProgress.init(asking:)
    ) -> Bool {
        var now: UInt64 = 0
        var passedOver: Set<ConnectionID> = []
        // Asked once per connection per call: system calls.
        var observed: [ConnectionID: ClientProgress] = [:]
        while shared.budget.bytes + shared.budget.cost(of: payload) > budget {
            if now == 0 { now = DispatchTime.now().uptimeNanoseconds }
            // O(connections), only when the budget is full.
            var best: (id: ConnectionID, queue: OutgoingQueue, rank: CutRank)?
            for (id, queue) in shared.queues where !queue.closing && queue.heldBytes > 0 {
                if !passedOver.isEmpty, passedOver.contains(id) { continue }
                let progress = observed[id] ?? observe(queue)
                observed[id] = progress
                let rank = CutRank(queue: queue, progress: progress, now: now, isSender: id == sender)
                if best.map({ rank.goesBefore($0.rank) }) ?? true { best = (id, queue, rank) }
            }
            guard let (id, queue, rank) = best, id != sender else { return false }
            guard queue.freeable(in: shared.budget) > 0 else {
                passedOver.insert(id)
                continue
            }
            cut.append(BudgetCut(id: id, rank: rank))
            _ = queue.overflow(reason: "host outgoing budget", budget: &shared.budget)
            shared.wake.append(id)
            shared.slowConsumers.append(id)
            shared.stats.slowConsumers += 1
        }
        return true
    }

    /// What the kernel says of a connection's client.
    struct ClientProgress {
        /// Its socket is full and its client took bytes since it filled.
        let readsWhileFull: Bool
        /// Bytes in its socket the client has not acknowledged (kernel memory it holds up).
        let unacknowledged: Int

        init(readsWhileFull: Bool, unacknowledged: Int) {
            self.readsWhileFull = readsWhileFull
            self.unacknowledged = unacknowledged
        }

        /// Asks the kernel (system calls) about `queue`'s socket.
        init(asking queue: OutgoingQueue) {
            readsWhileFull = queue.readsWhileFull()
            unacknowledged = SocketProgress.bytesUnacknowledged(queue.socket) ?? 0
        }
    }

    /// How long a socket must have been full before "its client took nothing since" counts:
    /// lws sends a big message 4 KiB at a time, so a prompt reader's socket is full for a
    /// moment at each one, before its client could take any of it.
    static var stallObservationNanoseconds: UInt64 { 10_000_000 }

    /// Where a connection stands in the order of `makeRoom`'s cuts.
    struct CutRank {
        /// Its socket has been full for `stallObservationNanoseconds` or more and its client
        /// took nothing since it filled.
        let stalled: Bool
        /// Its bytes of its own plus what its socket holds unacknowledged.
        let holds: Int
        /// What its socket holds unacknowledged (for the log).
        let unacknowledged: Int
        let isSender: Bool

        /// How long its socket has been full, if it is.
        let fullFor: UInt64?

        init(queue: OutgoingQueue, progress: ClientProgress, now: UInt64, isSender: Bool) {
            fullFor = queue.blocked ? queue.filledAt.map { now >= $0 ? now - $0 : 0 } ?? 0 : nil
            // NB: "nothing acknowledged since" means the client is not reading only while its
            // socket holds bytes it has not acknowledged: with none there, lws has simply not
            // sent it more yet (a busy loop), and the client took all it was given.
            stalled =
                (fullFor ?? 0) >= ServiceLoop.stallObservationNanoseconds && progress.unacknowledged > 0
                && !progress.readsWhileFull
            holds = queue.ownBytes + progress.unacknowledged
            unacknowledged = progress.unacknowledged
            self.isSender = isSender
        }

        func goesBefore(_ other: CutRank) -> Bool {
            if stalled != other.stalled { return stalled }
            if stalled, let fullFor, let otherFullFor = other.fullFor, fullFor != otherFullFor {
                return fullFor > otherFullFor
            }
            if holds != other.holds { return holds > other.holds }
            return other.isSender && !isSender
        }
    }

    /// A connection the budget cut, with what made it the one (for the log).
    struct BudgetCut: CustomStringConvertible {
        let id: ConnectionID
        let rank: CutRank

        var description: String {
            let socket =
                rank.fullFor.map {
                    "socket full for \($0 / 1_000_000) ms" + (rank.stalled ? ", its client reading nothing" : "")
                } ?? "socket not full"
            return "connection \(id): cut to make room in a full host outgoing budget (\(socket), holding "
                + "\(rank.holds) bytes, \(rank.unacknowledged) of them unread in its socket), closing with 1008"
        }
    }

    func receive(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        let id = ConnectionID(rawValue: rm_connection_id(wsi))
        let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        // NB: fed in place through its box. A local copy (`var assembler = dictionary[id]`,
        // feed, store back) shares the buffer with the dictionary's copy, so every fragment
        // copied the whole message so far: quadratic (16 MB took 16.5 s). Feeding through
        // the dictionary's subscript instead runs its `modify` coroutine, whose frame is
        // two heap allocations per message.
        guard let box = serviceThreadIncoming[id] else { return -1 }
        if serviceThreadKeepalive != nil { box.liveness.heard = keepaliveClock() }
        // A connection whose close is decided delivers nothing more; lws goes on parsing its
        // input meanwhile (see `closeAtWriteable`).
        guard serviceThreadCloseAtWriteable.isEmpty || serviceThreadCloseAtWriteable[id] == nil else { return 0 }
        let output = box.assembler.feed(
            bytes, isFinal: lws_is_final_fragment(wsi) != 0, binary: lws_frame_is_binary(wsi) != 0,
            remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
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
            return closeAtWriteable(wsi, id, .messageTooBig, "message too big")
        case .invalidText:
            return closeNow(wsi, id, .invalidPayload, "invalid UTF-8")
        }
    }

    func closeNow(_ wsi: OpaquePointer, _ id: ConnectionID, _ code: CloseCode, _ reason: String) -> Int32 {
        serviceThreadLocalClose[id] = (code, reason)
        // Frames still queued are dropped: none may follow the close frame.
        serviceThreadClosing.insert(id)
        var bytes = Array(reason.utf8.prefix(123))
        bytes.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(UInt32(code.rawValue)), buffer.baseAddress, buffer.count)
        }
        return -1
    }

    /// Begins a close from `RECEIVE` in the middle of a frame: the close is handed to lws at the
    /// next `WRITEABLE`, and until then `RECEIVE` swallows what lws reads.
    ///
    /// NB: returning -1 from `RECEIVE` (`closeNow`) mid-frame makes lws 4.1.6 drop the rest of
    /// the read it is parsing (`lws_read_h1` bails), so its frame parser loses its place: it
    /// unmasks what follows with the wrong mask bytes, its UTF-8 check of the discarded
    /// payload fails, and that second close, in `LRS_WAITING_TO_SEND_CLOSE`, kills the socket
    /// before the close frame is written (lib/core-net/close.c, "we tried the polite way").
    /// With a 1 KiB receive buffer the next read nearly always came before `WRITEABLE`, and a
    /// 1009 reached the client as a bare FIN. Returning 0 keeps the parser in step.
    func closeAtWriteable(_ wsi: OpaquePointer, _ id: ConnectionID, _ code: CloseCode, _ reason: String) -> Int32 {
        serviceThreadCloseAtWriteable[id] = (code, reason)
        // Frames still queued are dropped: none may follow the close frame.
        serviceThreadClosing.insert(id)
        // A client that goes on sending is read (and its bytes dropped) for 5 s at most, as lws
        // does while its own close frame waits.
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, 5)
        lws_callback_on_writable(wsi)
        return 0
    }

    func writeNext(_ wsi: OpaquePointer) -> Int32 {
        let id = ConnectionID(rawValue: rm_connection_id(wsi))
        if !serviceThreadCloseAtWriteable.isEmpty, let (code, reason) = serviceThreadCloseAtWriteable[id] {
            serviceThreadCloseAtWriteable[id] = nil
            return closeNow(wsi, id, code, reason)
        }
        // lws calls WRITEABLE while it sends its close frame and waits for the answer too.
        // NB: `isEmpty` first: a lookup hashes the id even in an empty set.
        guard serviceThreadClosing.isEmpty || !serviceThreadClosing.contains(id) else { return 0 }
        if !serviceThreadRxPaused.isEmpty, serviceThreadRxPaused.contains(id), lws_partial_buffered(wsi) == 0 {
            // lws has sent everything it held: read the client again.
            serviceThreadRxPaused.remove(id)
            shared.withLock { shared in shared.queues[id]?.drained(budget: &shared.budget) }
            lws_rx_flow_control(wsi, 1)
        }
        if let incoming = serviceThreadKeepalive == nil ? nil : serviceThreadIncoming[id], incoming.pingPending {
            // One lws_write per WRITEABLE: the ping alone, the queue at the next. NB: empty.
            // lws copies a pong's payload into the connection's receive buffer, which makes a
            // page of it resident (`ReceiveBufferArena`): 4 KiB per idle session. lws reports
            // no empty pong to us; the keepalive sees it in TCP's count instead.
            incoming.pingPending = false
            guard write(wsi, UnsafeRawBufferPointer(start: nil, count: 0), LWS_WRITE_PING) else { return -1 }
            if shared.withLock({ !($0.queues[id]?.isEmpty ?? true) }) { lws_callback_on_writable(wsi) }
            return 0
        }
        switch writeBatch(wsi, id) {
        case .written: return 0
        case .failed: return -1
        case .close(let code, let reason): return closeNow(wsi, id, code, reason)
        }
    }

    enum BatchOutcome {
        case written
        case failed
        case close(CloseCode, String)
    }

    /// Writes what is queued for a connection, up to `batchBytes` of frames, with one call,
    /// and asks for `WRITEABLE` again when more is left. A close at the head is returned, for
    /// the callback to hand to lws.
    func writeBatch(_ wsi: OpaquePointer, _ id: ConnectionID) -> BatchOutcome {
        // A server's frames go out together: what the host produced for this connection in a
        // turn (a `dismiss`, a `status`, the `controls`) is one send, not one poll round and
        // one system call each. A client's frames are masked by lws, one per WRITEABLE.
        let byteBudget: Int
        if case .server = role { byteBudget = Self.batchBytes } else { byteBudget = 0 }
        var batch = serviceThreadBatch
        serviceThreadBatch = []
        defer {
            batch.removeAll(keepingCapacity: true)
            serviceThreadBatch = batch
        }
        var frameBytes = 0
        let (close, more): ((CloseCode, String)?, Bool) = shared.withLock { shared in
            guard let queue = shared.queues[id] else { return (nil, false) }
            var close: (CloseCode, String)?
            while let next = queue.peekFirst() {
                switch next {
                case .close(let code, let reason):
                    // A close goes alone, after the frames queued before it.
                    if batch.isEmpty {
                        _ = queue.popFirst(budget: &shared.budget)
                        close = (code, reason)
                    }
                case .message(let message):
                    let size = WebSocketFrame.headerSize(payload: message.byteCount) + message.byteCount
                    if batch.isEmpty || frameBytes + size <= byteBudget {
                        _ = queue.popFirst(budget: &shared.budget)
                        batch.append(message)
                        frameBytes += size
                        continue
                    }
                }
                break
            }
            // Counted here, in the same lock (a failed write closes the connection anyway).
            shared.stats.messagesSent += batch.count
            if !batch.isEmpty { shared.stats.writes += 1 }
            return (close, !queue.isEmpty)
        }
        if let (code, reason) = close { return .close(code, reason) }
        if !batch.isEmpty {
            let written: Bool
            if batch.count == 1 {
                written = batch[0].withBytes { write(wsi, $0, $1 ? LWS_WRITE_TEXT : LWS_WRITE_BINARY) }
            } else {
                written = writeFrames(wsi, batch, totalBytes: frameBytes)
            }
            guard written else { return .failed }
            holdInputWhileBuffered(wsi, id, wrote: frameBytes)
        }
        if more { lws_callback_on_writable(wsi) }
        return .written
    }

    /// Stops reading a client while lws holds bytes of ours that its socket did not take
    /// (lws sends at most 4 KiB a call and keeps the rest), until `WRITEABLE` finds them
    /// sent. NB: libwebsockets 4.1.6 spins forever inside `lws_service` (100% CPU, no other
    /// connection served) when it reads a client's end of stream while it holds such
    /// bytes: its close waits to flush them, and its service loop retries the same socket
    /// at once, reading the end of stream again. With input paused, the end of stream is
    /// read only after the bytes are gone. A client that reads nothing is cut by the
    /// keepalive (no valid traffic) or the outgoing queue limit, on lws's timers.
    ///
    /// While paused, the budget counts the write's bytes as held by lws (an upper bound of
    /// the unsent rest it copied), so what waits in lws is within `maxOutgoingBytes` too.
    func holdInputWhileBuffered(_ wsi: OpaquePointer, _ id: ConnectionID, wrote bytes: Int) {
        guard case .server = role, lws_partial_buffered(wsi) != 0, !serviceThreadRxPaused.contains(id) else { return }
        serviceThreadRxPaused.insert(id)
        let acknowledged = SocketProgress.bytesAcknowledged(Int32(lws_get_socket_fd(wsi)))
        let now = DispatchTime.now().uptimeNanoseconds
        var cut: [BudgetCut] = []
        shared.withLock { shared in
            shared.queues[id]?.filled(at: now, holding: bytes, acknowledged: acknowledged, budget: &shared.budget)
            // What lws keeps may take the budget past its bound with no message being
            // queued: make room now, as a send would (no connection is the sender).
            if shared.budget.bytes > maxOutgoingBytes {
                _ = Self.makeRoom(
                    for: .utf8([]), sender: ConnectionID(rawValue: 0), in: &shared, budget: maxOutgoingBytes, cut: &cut)
            }
        }
        for cut in cut { logger.warning("\(cut)") }
        if !cut.isEmpty { wake() }
        lws_rx_flow_control(wsi, 0)
    }

    /// The most bytes of frames joined into one send: lws hands at most its service
    /// buffer (4 KiB by default) to one `send` and copies the rest aside, so a larger batch
    /// would only add a copy.
    static var batchBytes: Int { 4096 }

    /// Writes several whole frames (server role: unmasked, no extensions) with one call;
    /// lws treats them as raw bytes and keeps whatever the socket does not take for the
    /// next WRITEABLE, before any frame of its own.
    func writeFrames(_ wsi: OpaquePointer, _ messages: [OutgoingPayload], totalBytes total: Int) -> Bool {
        let pre = rm_lws_pre()
        reserveScratch(pre + total)
        var cursor = serviceThreadScratch.baseAddress! + pre
        for message in messages {
            message.withBytes { payload, isText in
                cursor = WebSocketFrame.write(opcode: isText ? .text : .binary, payload: payload, at: cursor)
            }
        }
        let start = (serviceThreadScratch.baseAddress! + pre).assumingMemoryBound(to: UInt8.self)
        return lws_write(wsi, start, total, rm_write_raw()) >= total
    }

    func reserveScratch(_ needed: Int) {
        if serviceThreadScratch.count < needed {
            serviceThreadScratch.deallocate()
            serviceThreadScratch = .allocate(byteCount: max(needed, 2 * serviceThreadScratch.count), alignment: 16)
        }
    }

    func write(_ wsi: OpaquePointer, _ payload: UnsafeRawBufferPointer, _ kind: lws_write_protocol) -> Bool {
        let pre = rm_lws_pre()
        reserveScratch(pre + payload.count)
        if let source = payload.baseAddress, payload.count > 0 {
            (serviceThreadScratch.baseAddress! + pre).copyMemory(from: source, byteCount: payload.count)
        }
        let start = (serviceThreadScratch.baseAddress! + pre).assumingMemoryBound(to: UInt8.self)
        let result = lws_write(wsi, start, payload.count, kind)
        return result >= payload.count
    }
}
