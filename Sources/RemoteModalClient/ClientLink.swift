import RemoteModalCrypto
import RemoteModalLocking
import RemoteModalProtocol

/// What happened to one link attempt.
public enum LinkEvent: Sendable, Equatable {
    /// The WebSocket opened.
    case opened
    /// A text frame arrived.
    case text(String)
    /// The open WebSocket closed (1006 when there was no close frame).
    case closed(code: UInt16, reason: String)
    /// The attempt never opened.
    case failed(LinkFailure)
}

/// A way to reach the host: a WebSocket on libwebsockets (`RemoteModalClientWebSocket`), an
/// in-memory connection to a `ModalHost` (`RemoteModalTestSupport`), anything else.
///
/// Attempts are numbered by the client before they start, so an event that comes back at
/// once is never mistaken for another attempt's. Methods may be called from any thread.
public protocol ClientLink: Sendable {
    /// Starts an attempt; its events go to `events`, possibly before this returns, on any thread.
    /// - Parameters:
    ///   - attempt: The client's number for it.
    ///   - events: Called with each event of the attempt.
    func open(attempt: Int, events: @escaping @Sendable (LinkEvent) -> Void)
    /// Sends a text frame on an open attempt (dropped otherwise).
    /// - Parameters:
    ///   - text: The frame.
    ///   - attempt: The attempt.
    func send(_ text: String, attempt: Int)
    /// Closes an attempt; no more of its events matter.
    /// - Parameters:
    ///   - attempt: The attempt.
    ///   - code: The close code.
    ///   - reason: A short reason.
    func close(attempt: Int, code: UInt16, reason: String)
    /// Whether ``send(binary:attempt:)`` puts binary frames on the wire. A link that says
    /// `false` (the default) is sent text only.
    var sendsBinaryFrames: Bool { get }
    /// Sends a binary frame on an open attempt (dropped otherwise); called only when
    /// ``sendsBinaryFrames`` is `true`.
    /// - Parameters:
    ///   - bytes: The frame's payload.
    ///   - attempt: The attempt.
    func send(binary bytes: [UInt8], attempt: Int)
}

extension ClientLink {
    /// Text only, as links written before binary upload chunks.
    public var sendsBinaryFrames: Bool { false }
    /// Never called while ``sendsBinaryFrames`` is `false`.
    /// - Parameters:
    ///   - bytes: The frame's payload.
    ///   - attempt: The attempt.
    public func send(binary bytes: [UInt8], attempt: Int) {}
}

/// Time for the driver's timers. Injected so an app can use its own and tests can hold time.
public protocol ClientClock: Sendable {
    /// Returns after `seconds`, or throws when the task is cancelled.
    /// - Parameter seconds: The delay.
    /// - Throws: `CancellationError`.
    func sleep(seconds: Double) async throws
}

/// The real clock.
public struct ContinuousClientClock: ClientClock {
    /// Creates the clock.
    public init() {}

    /// Sleeps on `ContinuousClock`.
    /// - Parameter seconds: The delay.
    /// - Throws: `CancellationError`.
    public func sleep(seconds: Double) async throws {
        try await ContinuousClock().sleep(for: .milliseconds(Int64((seconds * 1_000).rounded(.up))))
    }
}

/// Where the client keeps its snapshot (session, kept answers) across its own restart.
public protocol ClientStore: Sendable {
    /// The stored text, if any.
    /// - Returns: What `save` last stored.
    func load() async -> String?
    /// Replaces the stored text.
    /// - Parameter text: The snapshot (`ClientSnapshot.encoded()`); it holds the session id.
    func save(_ text: String) async
}

/// A store in memory: survives a client, not the process. Share one between two clients to
/// simulate a restart.
public final class MemoryClientStore: ClientStore {
    private let text: Locked<String?>

    /// Creates a store.
    /// - Parameter text: What it holds at first.
    public init(_ text: String? = nil) { self.text = Locked(text) }

    /// The stored text.
    /// - Returns: The text.
    public func load() async -> String? { text.withLock { $0 } }

    /// Replaces the stored text.
    /// - Parameter text: The text.
    public func save(_ text: String) async { self.text.withLock { $0 = text } }

    /// What it holds now.
    public var stored: String? { text.withLock { $0 } }
}

/// A file the app picked, read as the upload needs it.
public protocol ClientFile: Sendable {
    /// The name sent to the host.
    var name: String { get }
    /// The MIME type.
    var mimeType: String { get }
    /// The size in bytes.
    var size: Int { get }
    /// Reads `length` bytes from `offset`.
    /// - Parameters:
    ///   - offset: The first byte.
    ///   - length: How many.
    /// - Returns: The bytes.
    /// - Throws: When the file cannot be read.
    func read(offset: Int, length: Int) async throws -> [UInt8]
}

/// A file held in memory.
public struct MemoryFile: ClientFile {
    /// The name.
    public var name: String
    /// The MIME type.
    public var mimeType: String
    /// The bytes.
    public var bytes: [UInt8]

    /// Creates a file.
    /// - Parameters:
    ///   - name: The name.
    ///   - mimeType: The MIME type.
    ///   - bytes: The bytes.
    public init(name: String, mimeType: String, bytes: [UInt8]) {
        self.name = name
        self.mimeType = mimeType
        self.bytes = bytes
    }

    /// The size.
    public var size: Int { bytes.count }

    /// Reads a slice.
    /// - Parameters:
    ///   - offset: The first byte.
    ///   - length: How many.
    /// - Returns: The bytes (fewer past the end).
    public func read(offset: Int, length: Int) async throws -> [UInt8] {
        let start = min(max(0, offset), bytes.count)
        return Array(bytes[start..<min(bytes.count, start + max(0, length))])
    }
}

/// Computes a picked file's SHA-256 (lower-case hex) before its upload. Injected: the default
/// is libcrypto's (`SHA256FileHasher`); an app with a hash of its platform's passes its own.
public protocol FileHasher: Sendable {
    /// Hashes the whole file.
    /// - Parameter file: The file.
    /// - Returns: 64 lower-case hex digits.
    /// - Throws: When the file cannot be read.
    func sha256(of file: any ClientFile) async throws -> String
}

/// SHA-256 from libcrypto (`RemoteModalCrypto`), reading 64 KiB at a time.
public struct SHA256FileHasher: FileHasher {
    /// Creates the hasher.
    public init() {}

    /// Hashes the whole file.
    /// - Parameter file: The file.
    /// - Returns: 64 lower-case hex digits.
    /// - Throws: When the file cannot be read.
    public func sha256(of file: any ClientFile) async throws -> String {
        var hash = SHA256()
        var offset = 0
        while offset < file.size {
            let bytes = try await file.read(offset: offset, length: min(65_536, file.size - offset))
            guard !bytes.isEmpty else { break }
            hash.update(bytes)
            offset += bytes.count
        }
        return hash.finalize().hex
    }
}
