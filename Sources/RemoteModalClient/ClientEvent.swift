import RemoteModalProtocol

/// Why a connection attempt never opened, as a link reports it.
public enum LinkFailure: Sendable, Equatable {
    /// Nobody listens there (connection refused).
    case refused
    /// The network reset or dropped the attempt.
    case reset
    /// The TLS handshake failed (a certificate the client does not trust, ...).
    case tls(String)
    /// The upgrade was answered with an HTTP status other than 101 (503: the host is full or stopping).
    case http(Int)
    /// The upgrade was answered with something other than 101 and the link does not know the
    /// status (libwebsockets 4.1 says only "ws upgrade response not 101"): retried as a 503,
    /// since a full host is the refusal that passes.
    case upgradeRefused(String)
    /// Anything else, in the link's words.
    case other(String)
}

/// One file the app picked for a picker, as the state machine sees it: the protocol's own
/// `PickedItem` (name, MIME type, size, SHA-256), whose bytes are read through
/// `ClientAction.readChunk` and whose hash was computed before (`FileHasher`).
public typealias PickedFileInfo = PickedItem

/// How the app answers a modal: a value for the host's `result`, or a `failure`.
public enum FormReply: Sendable, Equatable {
    /// A `result` carrying this answer.
    case answer(ModalAnswer)
    /// A `failure` with this code and optional words.
    case failure(FailureCode, String?)
}

/// Everything that can happen to a client: the link, the timers, the app, the file reader,
/// the store. `ClientStateMachine.handle(_:)` turns each into actions.
public enum ClientEvent: Sendable, Equatable {
    /// The persisted state was read (`nil`: nothing stored); the machine starts connecting.
    case storeLoaded(ClientSnapshot?)
    /// The attempt's WebSocket opened.
    case linkOpened(attempt: Int)
    /// The attempt's open WebSocket closed (`code` 1006 when there was no close frame).
    case linkClosed(attempt: Int, code: UInt16, reason: String)
    /// The attempt never opened.
    case linkFailed(attempt: Int, LinkFailure)
    /// A text frame arrived on the attempt.
    case textReceived(attempt: Int, String)
    /// A frame larger than the machine's bound arrived and was not kept (`bytes` long).
    case oversizedReceived(attempt: Int, bytes: Int)
    /// The host sent on the attempt faster than the client handles: the driver's queue passed
    /// `ClientLimits.queuedBytes` or `queuedFrames`, or the frames came faster than
    /// `framesPerSecond`, and what the attempt queued was dropped unhandled. The link is
    /// closed and the session resumed from the last `seq` handled, so the host sends again
    /// what stands.
    case overwhelmed(attempt: Int)
    /// A timer the machine started ran out.
    case timerFired(ClientTimer)
    /// The app answered a modal.
    case answered(id: String, FormReply)
    /// The app tapped a control.
    case tapped(control: String)
    /// The person typed into an alert's text fields (all of them, in order).
    case typed(id: String, textFields: [String])
    /// The app picked files for a picker (hashed already); the upload starts.
    case picked(id: String, files: [PickedFileInfo])
    /// The app asks an upload the host refused to go on from what the host acknowledged.
    case retryUpload(id: String)
    /// A chunk the machine asked for was read.
    case chunkRead(id: String, file: Int, offset: Int, bytes: [UInt8])
    /// A chunk could not be read (the file went away).
    case chunkReadFailed(id: String, file: Int, message: String)
    /// Connect now instead of waiting (after a refusal that stopped retries, or a backoff).
    case retryNow
    /// Close for good.
    case stop
}

/// The timers the machine starts; a new start of the same timer replaces the old one.
public enum ClientTimer: Hashable, Sendable {
    /// The backoff before the next attempt.
    case reconnect
    /// An attempt's `welcome` watchdog.
    case welcome(attempt: Int)
    /// The reply watchdog after an answer or an upload chunk.
    case reply(attempt: Int)
    /// After a resume: how long the host's re-sent state (controls, presents) may take.
    case resync(attempt: Int)
    /// The heartbeat: the host has been silent this long; a `ping` goes out.
    case heartbeat(attempt: Int)
    /// The wait for any message after a `ping`.
    case pong(attempt: Int)
    /// The input throttle of one alert.
    case input(id: String)
    /// The budget of automatic replies (a `failure` for a present this client cannot show)
    /// refills, and held replies go out within it.
    case replies
    /// Runs out when the session's retention passed since the link was lost: a fresh
    /// session after it means "expired", before it "restarted".
    case retention
}
