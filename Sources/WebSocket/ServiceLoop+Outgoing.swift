import CLibWebSockets
import Foundation
import Locking
import Logging
import Synchronization
import Transport

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
        var evicted: [ConnectionID] = []
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
        for other in evicted {
            logger.warning("connection \(other): cut to make room in a full host outgoing budget, closing with 1008")
        }
        if !evicted.isEmpty { wake() }
        guard let result else { return false }
        if direct, result == .queued {
            // NB: not written here, nor at the end of the turn: lws writes a pong it owes
            // (for a ping read in this turn) from WRITEABLE, before calling us, and a pong
            // must not come after the answer to the message the ping preceded (Autobahn 5.6).
            if wasEmpty, let wsi { lws_callback_on_writable(wsi) }
        } else if result == .overflow || (result == .queued && !wakeAlreadyPending) {
            wake()
        }
        if result == .overflow { logger.warning("connection \(id): outgoing queue over its limit, closing with 1008") }
        return result == .queued
    }

    /// Makes room for `payload` in the host-wide outgoing budget: while it would be
    /// exceeded, a connection is cut with 1008 and its frames dropped. Returns false when
    /// the sender itself is the one to cut.
    ///
    /// Who is cut: first a connection whose socket has been full (lws holds bytes of ours
    /// it could not send) for `stalledNanoseconds` or more: its client stopped reading or
    /// cannot keep up; then any other. Within each, the one holding the most bytes (its
    /// queue and what lws keeps for it); on a tie, the one heard from least recently, and
    /// never the sender. Simpler rules failed: the most bytes alone let a burst to many
    /// connections at once cut a reader, which held as much at that instant as clients
    /// that had stopped reading long before (whose bytes sat in their sockets); "full the
    /// longest" let a slow reader be cut for a client that stopped a moment later holding
    /// eight times its bytes, and let a reader whose socket was full for a millisecond, as
    /// a big message went out, be cut before a session's stalled connections; cutting
    /// whoever asked next let clients that stop reading get healthy ones disconnected.
    static func makeRoom(
        for payload: OutgoingPayload, sender: ConnectionID, in shared: inout Shared, budget: Int,
        cut: inout [ConnectionID]
    ) -> Bool {
        var now: UInt64 = 0
        while shared.budget.bytes + shared.budget.cost(of: payload) > budget {
            if now == 0 { now = DispatchTime.now().uptimeNanoseconds }
            // O(connections), only when the budget is full.
            guard let (id, queue) = cutCandidate(in: shared.queues, sender: sender, now: now), id != sender else {
                return false
            }
            _ = queue.overflow(reason: "host outgoing budget", budget: &shared.budget)
            shared.wake.append(id)
            shared.slowConsumers.append(id)
            shared.stats.slowConsumers += 1
            cut.append(id)
        }
        return true
    }

    /// How long a socket stays full before its connection counts as stalled: a reader's
    /// socket is full for milliseconds while a big message goes out.
    static var stalledNanoseconds: UInt64 { 1_000_000_000 }

    /// The connection to cut for the budget (see `makeRoom`).
    static func cutCandidate(
        in queues: [ConnectionID: OutgoingQueue], sender: ConnectionID,
        now: UInt64 = DispatchTime.now().uptimeNanoseconds
    ) -> (ConnectionID, OutgoingQueue)? {
        var best: (id: ConnectionID, queue: OutgoingQueue)?
        for (id, queue) in queues where !queue.closing && queue.heldBytes > 0 {
            guard let current = best else {
                best = (id, queue)
                continue
            }
            if goesFirst((id, queue), before: current, sender: sender, now: now) { best = (id, queue) }
        }
        return best
    }

    private static func goesFirst(
        _ one: (id: ConnectionID, queue: OutgoingQueue), before other: (id: ConnectionID, queue: OutgoingQueue),
        sender: ConnectionID, now: UInt64
    ) -> Bool {
        func stalled(_ queue: OutgoingQueue) -> Bool {
            guard let since = queue.blockedSince else { return false }
            return now >= since && now - since >= stalledNanoseconds
        }
        if stalled(one.queue) != stalled(other.queue) { return stalled(one.queue) }
        if one.queue.heldBytes != other.queue.heldBytes { return one.queue.heldBytes > other.queue.heldBytes }
        if one.queue.lastHeard != other.queue.lastHeard { return one.queue.lastHeard < other.queue.lastHeard }
        return other.id == sender
    }

    func receive(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        let id = ConnectionID(rawValue: rm_connection_id(wsi))
        let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        // NB: fed in place through its box. A local copy (`var assembler = dictionary[id]`,
        // feed, store back) shares the buffer with the dictionary's copy, so every fragment
        // copied the whole message so far: quadratic (16 MB took 16.5 s). Feeding through
        // the dictionary's subscript instead runs its `modify` coroutine, whose frame is
        // two heap allocations per message.
        guard let box = serviceThreadAssemblers[id] else { return -1 }
        let output = box.assembler.feed(
            bytes, isFinal: lws_is_final_fragment(wsi) != 0, binary: lws_frame_is_binary(wsi) != 0,
            remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
        switch output {
        case .incomplete:
            return 0
        case .message(let message):
            shared.withLock { shared in
                shared.stats.messagesReceived += 1
                box.queue.lastHeard = shared.stats.messagesReceived
            }
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

    func writeNext(_ wsi: OpaquePointer) -> Int32 {
        let id = ConnectionID(rawValue: rm_connection_id(wsi))
        // lws calls WRITEABLE while it sends its close frame and waits for the answer too.
        // NB: `isEmpty` first: a lookup hashes the id even in an empty set.
        guard serviceThreadClosing.isEmpty || !serviceThreadClosing.contains(id) else { return 0 }
        if !serviceThreadRxPaused.isEmpty, serviceThreadRxPaused.contains(id), lws_partial_buffered(wsi) == 0 {
            // lws has sent everything it held: read the client again.
            serviceThreadRxPaused.remove(id)
            shared.withLock { shared in shared.queues[id]?.drained(budget: &shared.budget) }
            lws_rx_flow_control(wsi, 1)
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
        let now = DispatchTime.now().uptimeNanoseconds
        var cut: [ConnectionID] = []
        shared.withLock { shared in
            shared.queues[id]?.blocked(at: now, holding: bytes, budget: &shared.budget)
            // What lws keeps may take the budget past its bound with no message being
            // queued: make room now, as a send would (no connection is the sender).
            if shared.budget.bytes > maxOutgoingBytes {
                _ = Self.makeRoom(
                    for: .utf8([]), sender: ConnectionID(rawValue: 0), in: &shared, budget: maxOutgoingBytes, cut: &cut)
            }
        }
        for other in cut {
            logger.warning("connection \(other): cut to make room in a full host outgoing budget, closing with 1008")
        }
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
