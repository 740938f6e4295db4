import RemoteModalProtocol

/// What the state machine asks its driver to do, in order.
public enum ClientAction: Sendable, Equatable {
    /// Open a WebSocket for this attempt; report its events with the attempt number.
    case openLink(attempt: Int)
    /// Send a text frame on the attempt.
    case send(attempt: Int, text: String)
    /// Send a binary frame on the attempt: an upload chunk in its binary form, only to a host
    /// that offered `binaryUploads` and with ``ClientConfiguration/binaryUploads`` on.
    case sendBinary(attempt: Int, bytes: [UInt8])
    /// Close the attempt; no more of its events count.
    case closeLink(attempt: Int, code: UInt16, reason: String)
    /// Start (or restart) a timer.
    case startTimer(ClientTimer, seconds: Double)
    /// Cancel a timer (nothing happens if it is not running).
    case cancelTimer(ClientTimer)
    /// Read `length` bytes of a picked file from `offset`, then report `chunkRead`.
    case readChunk(id: String, file: Int, offset: Int, length: Int)
    /// The files of this picker are no longer needed.
    case releaseFiles(id: String)
    /// Persist this snapshot (the session and the answer outbox) for a client restart.
    case persist(ClientSnapshot)
    /// Tell the app.
    case emit(ClientUpdate)
}

/// The connection as a person would be told about it.
public enum ConnectionState: Sendable, Equatable {
    /// The first attempt is under way.
    case connecting
    /// Welcomed by the host.
    case connected(resumed: Bool)
    /// Waiting `retryIn` seconds before attempt `attempt` of this outage (the lost or first
    /// connection was attempt 1; the count starts again once one is welcomed); `why` names
    /// what ended the last one.
    case reconnecting(attempt: Int, retryIn: Double, why: Disconnection)
    /// The host refused this client and the same attempt would be refused again: no more
    /// attempts until `retryNow` (a refused hello, an HTTP 4xx, 1008 `unauthorized`).
    case stopped(Disconnection)
    /// `stop` was asked.
    case closed
}

/// What ended a connection, in words an app can show.
public enum Disconnection: Sendable, Equatable {
    /// The attempt never opened.
    case failed(LinkFailure)
    /// The connection closed with this code and reason (1006: dropped).
    case closed(code: UInt16, reason: String)
    /// The host closed with 1001: it is shutting down, most often to restart.
    case hostLeft
    /// The host closed with 1013 (too many sessions, at capacity): try again later.
    case busy(reason: String)
    /// The host closed with 1008 `unauthorized`; `message` is the host's own words if it said any.
    case unauthorized(message: String?)
    /// The host answered the hello with an `error`.
    case helloRefused(ProtocolError)
    /// No `welcome` within the welcome timeout.
    case noWelcome
    /// No reply within the reply timeout after an answer or a chunk: a dead network.
    case noReply
    /// Nothing came within the heartbeat's timeout after a `ping` (`seconds`: the silence
    /// when the client gave up): a stopped host or a stalled network.
    case silent(seconds: Int)
}

/// Why the client ended a modal or dropped an answer by itself (no `dismiss` came).
public enum SessionLoss: Sendable, Equatable {
    /// A resume got a fresh session within the retention: the host lost its state (restarted).
    case restarted
    /// A resume got a fresh session after the retention: the session expired while away.
    case expired
    /// The session resumed but the host did not present the modal again: it ended while away.
    case ended
}

/// How a modal ended: the host's `dismiss` reason, or the client's conclusion.
public enum ModalEnd: Sendable, Equatable {
    /// The host's `dismiss`.
    case host(DismissReason)
    /// The client's conclusion after a resume.
    case lost(SessionLoss)
}

/// What the app hears: `for await update in client.events`.
public enum ClientUpdate: Sendable, Equatable {
    /// The connection changed.
    case connection(ConnectionState)
    /// The host's full list of controls.
    case controls([ControlItem])
    /// A new modal to show; `answered` when an answer kept from before is on its way.
    case present(ModalForm, answered: Bool)
    /// The host sent again a modal already shown (a resume): take its action states.
    case represent(ModalForm)
    /// An open modal's action states changed.
    case update(ModalForm)
    /// A modal ended.
    case dismiss(id: String, ModalEnd)
    /// A notice.
    case status(StatusLevel, String)
    /// The host refused the answer (`bad_message`, `action_disabled`); the modal stays open.
    case answerRejected(id: String, ProtocolError)
    /// An answer was never delivered: the session was lost before its dismiss.
    case answerDropped(id: String, SessionLoss)
    /// A resume got a fresh session: the one held before is gone (`restarted` or `expired`),
    /// said even when no modal was shown. Comes after the `dismiss`es and `answerDropped`s
    /// of what was lost, before the `connected` state.
    case sessionReplaced(SessionLoss)
    /// Bytes of a picker's files the host acknowledged, of `total`.
    case uploadProgress(id: String, acknowledged: Int, total: Int)
    /// The host refused a chunk (`upload_invalid`) or a file could not be read: the upload
    /// waits for `retryUpload` or a `failure`.
    case uploadStopped(id: String, message: String)
    /// Any other `error` from the host.
    case hostError(ProtocolError)
    /// A message from the host was skipped (malformed, oversized, unknown); `why` says how.
    case skipped(why: String)
    /// A tap or an answer while no connection is up: the tap is dropped, the answer kept.
    case offline(what: String)
    /// The host sent faster than this client handles: what it sent was dropped, the link
    /// closed, and the session is resumed (the host sends again what stands).
    case overwhelmed
}
