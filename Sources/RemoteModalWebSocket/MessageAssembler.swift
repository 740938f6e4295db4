import Foundation
import RemoteModalTransport

/// Reassembles one connection's fragments into messages and enforces the size limit.
/// Pure state machine: no I/O, so it tests without a socket.
struct MessageAssembler {
    /// What the caller does after feeding a fragment.
    enum Output: Equatable {
        /// Wait for more fragments.
        case incomplete
        /// A whole message arrived.
        case message(WebSocketMessage)
        /// The message passes the limit: close with 1009.
        case tooLarge
        /// Text that is not valid UTF-8: close with 1007.
        case invalidText
    }

    let limit: Int
    // Only a message that arrives in pieces is copied here; the buffer is sized for the
    // piece's whole frame when lws says how much of it is still to come, and released once
    // its message is delivered, so an idle connection holds no buffer at all (it held 4 KiB
    // from its first message on: issue 31's memory per idle session).
    private var buffer: [UInt8] = []
    private var isBinary = false
    private var inMessage = false
    private var discarding = false
    /// Checks a text message's pieces as they arrive, so bad UTF-8 closes at once.
    private var validator = UTF8Validator()

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether a partial message is buffered (tests: an idle connection holds none).
    var holdsBuffer: Bool { buffer.capacity > 0 }

    /// Feeds one fragment (or part of one) as libwebsockets delivers it.
    /// - Parameters:
    ///   - bytes: The payload bytes.
    ///   - isFinal: Whether this ends the message.
    ///   - binary: Whether the message is binary (read on the first fragment).
    ///   - remainingInFrame: Bytes of this frame not yet delivered (lets an oversized
    ///     frame be refused before it is buffered).
    mutating func feed(
        _ bytes: UnsafeRawBufferPointer, isFinal: Bool, binary: Bool, remainingInFrame: Int = 0
    ) -> Output {
        // NB: libwebsockets may hand one frame over in several pieces, each flagged as a
        // first fragment; only our own `inMessage` tells where a message really starts.
        if !inMessage {
            buffer = []
            isBinary = binary
            inMessage = true
            discarding = false
            validator = UTF8Validator()
        }
        guard !discarding else { return .tooLarge }
        if buffer.count + bytes.count + remainingInFrame > limit {
            discarding = true
            buffer = []
            return .tooLarge
        }
        let complete = isFinal && remainingInFrame == 0
        if !isBinary {
            // Fail fast: bad UTF-8 is refused in the piece that carries it (RFC 6455 §8.1), and
            // a message may not end inside a character.
            guard validator.feed(bytes), !complete || validator.isAtBoundary else {
                inMessage = false
                buffer = []
                return .invalidText
            }
        }
        if complete && buffer.isEmpty {
            // The whole message in one piece (nearly every protocol message): decoded from
            // lws's buffer, never copied into one of ours.
            inMessage = false
            return Self.decodeChecked(bytes, binary: isBinary)
        }
        let needed = buffer.count + bytes.count
        if needed + remainingInFrame > buffer.capacity {
            // The rest of this frame at once when lws says how much is coming; otherwise
            // doubling (up to the limit), so every byte is copied O(1) times on average.
            buffer.reserveCapacity(min(limit, max(needed + remainingInFrame, 2 * buffer.capacity, 4_096)))
        }
        buffer.append(contentsOf: bytes)
        guard complete else { return .incomplete }
        inMessage = false
        defer { buffer = [] }
        return buffer.withUnsafeBytes { Self.decodeChecked($0, binary: isBinary) }
    }

    /// A whole message's payload as a message; text has passed `validator` already.
    private static func decodeChecked(_ bytes: UnsafeRawBufferPointer, binary: Bool) -> Output {
        if binary { return .message(.binary(Data(bytes))) }
        // NB: `String(validating:)` takes a generic, unspecialized path that cost more than
        // the rest of receiving a message; the bytes are known to be valid here.
        return .message(.text(String(decoding: bytes, as: UTF8.self)))
    }
}

/// What the service thread keeps of a connection's incoming side, behind a reference: its
/// assembler, fed in place without copying its buffer, and what the keepalive knows of it.
/// Service-thread confined, like the dictionary that holds it.
final class IncomingState {
    var assembler: MessageAssembler
    /// When it was last heard from and last pinged (`KeepaliveSchedule` ticks).
    var liveness: KeepaliveSchedule.Liveness
    /// A ping waits for its `WRITEABLE`.
    var pingPending = false
    /// TCP's count of bytes received from the client when the last ping was queued, until a
    /// look finds it grown (`ServiceLoop.serviceKeepalive`).
    var bytesWhenPinged: UInt64?

    /// When the connection was upgraded (`KeepaliveSchedule` ticks).
    let openedAt: UInt32

    init(_ assembler: MessageAssembler, openedAt tick: UInt32) {
        self.assembler = assembler
        openedAt = tick
        liveness = KeepaliveSchedule.Liveness(heard: tick, pinged: nil)
    }
}
