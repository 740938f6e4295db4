import Foundation
import RemoteModalCrypto
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalProtocol
import RemoteModalWebSocket

/// Uploads through the demo host's photo picker (issue 31): `sessions` clients each tap
/// `photo`, upload `filesPerPick` JPEG-looking files of `fileBytes` at the full window the
/// picker's `present` offers (a chunk sent for each `uploadAck`), send the result with
/// the files' SHA-256, wait for the status "Received …" and the idle controls, and tap
/// again. Throughput counts the bytes the host acknowledged in the measured window. Any
/// `error`, closed connection or session that completes no pick fails the run.
public struct UploadLoad: Sendable {
    /// The host's WebSocket URL.
    public var url: String
    /// Concurrent sessions, each uploading one pick at a time.
    public var sessions = 4
    /// Files in one pick (the demo picker takes at most 3).
    public var filesPerPick = 3
    /// Bytes of each file (the demo picker takes 10 MiB in all).
    public var fileBytes = 3 * 1_048_576
    /// Seconds measured, after the warm-up.
    public var seconds = 10.0
    /// Seconds run before measuring.
    public var warmupSeconds = 1.0
    /// Whether chunks go as binary frames when the host's `welcome` offers `binaryUploads`
    /// (docs/protocol.md, section 7, "Binary chunks"); `false` sends base64 in text always.
    public var binary = true
    /// The server process, whose CPU time over the window is divided by the megabytes
    /// acknowledged in it; `nil` to skip.
    public var serverPID: Int32?

    /// Creates a workload.
    /// - Parameter url: The host's WebSocket URL.
    public init(url: String) {
        self.url = url
    }

    /// What one run measured.
    public struct Result: Sendable {
        /// Bytes acknowledged in the window, all sessions together, in MB (10^6 bytes) a second.
        public let megabytesPerSecond: Double
        /// Picks completed (result sent, status and idle controls received) in the whole run.
        public let picks: Int
        /// The server's user plus system CPU time in the window per MB acknowledged in it (ms).
        public let serverCPUMillisPerMegabyte: Double?
    }

    private static let chunkBytes = 32 * 1_024

    /// The files of a pick: their names, chunks (raw and base64) and SHA-256, made once.
    private struct Files: Sendable {
        let names: [String]
        let chunks: [[String]]
        let raw: [[[UInt8]]]
        let hashes: [String]
        let size: Int
    }

    private struct Uploader {
        enum Phase { case awaitingControls, tapped, uploading, answered }
        var phase = Phase.awaitingControls
        var modal = ""
        var window = 8
        var file = 0
        var chunk = 0
        var inFlight: [Int] = []
        var binary = false
        var gotStatus = false
        var gotIdle = false
    }

    private struct State {
        var uploaders: [ConnectionID: Uploader] = [:]
        var picksInWindow: [ConnectionID: Int] = [:]
        var picks = 0
        var bytesInWindow = 0
        var measuring = false
        var failure: String?
        var stopping = false
    }

    private static let tap = "{\"type\":\"event\",\"control\":\"photo\"}"

    private static func makeFiles(count: Int, size: Int) -> Files {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var names: [String] = []
        var chunks: [[String]] = []
        var raw: [[[UInt8]]] = []
        var hashes: [String] = []
        for index in 0..<count {
            var bytes = [UInt8](repeating: 0, count: size)
            for position in bytes.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes[position] = UInt8(truncatingIfNeeded: state >> 33)
            }
            // A JPEG's first bytes, for the picker's image filter.
            bytes.replaceSubrange(0..<min(4, size), with: [0xFF, 0xD8, 0xFF, 0xE0].prefix(size))
            names.append("photo-\(index).jpg")
            hashes.append(SHA256.hex(bytes))
            let pieces = stride(from: 0, to: size, by: chunkBytes).map { Array(bytes[$0..<min(size, $0 + chunkBytes)]) }
            raw.append(pieces)
            chunks.append(pieces.map { Data($0).base64EncodedString() })
        }
        return Files(names: names, chunks: chunks, raw: raw, hashes: hashes, size: size)
    }

    /// What to send after a message, decided under the state's lock.
    private static func handle(
        _ text: String, _ id: ConnectionID, _ files: Files, binary: Bool, _ state: inout State
    ) -> [WebSocketMessage] {
        guard state.failure == nil, var uploader = state.uploaders[id] else { return [] }
        defer { state.uploaders[id] = uploader }
        func fail(_ reason: String) -> [WebSocketMessage] {
            state.failure = state.failure ?? "session \(id.rawValue): \(reason)"
            return []
        }
        func fill() -> [WebSocketMessage] {
            var out: [WebSocketMessage] = []
            while uploader.inFlight.count < uploader.window, uploader.file < files.chunks.count {
                let chunks = files.chunks[uploader.file]
                let offset = uploader.chunk * chunkBytes
                let bytes = min(chunkBytes, files.size - offset)
                let last = uploader.chunk == chunks.count - 1
                if uploader.binary {
                    let chunk = UploadChunk(
                        id: uploader.modal, file: uploader.file, name: files.names[uploader.file],
                        mimeType: "image/jpeg", size: files.size, offset: offset, data: "",
                        bytes: files.raw[uploader.file][uploader.chunk], last: last)
                    out.append(.binary(Data(chunk.binaryFrame())))
                } else {
                    out.append(
                        .text(
                            "{\"type\":\"upload\",\"id\":\"\(uploader.modal)\",\"file\":\(uploader.file),\"name\":\""
                                + files.names[uploader.file] + "\",\"mimeType\":\"image/jpeg\",\"size\":\(files.size),"
                                + "\"offset\":\(offset),\"data\":\"" + chunks[uploader.chunk] + "\",\"last\":\(last)}"))
                }
                uploader.inFlight.append(bytes)
                uploader.chunk += 1
                if last {
                    uploader.file += 1
                    uploader.chunk = 0
                }
            }
            return out
        }
        guard let type = scanField("type", in: text) else { return fail("no type: \(text.prefix(200))") }
        switch type {
        case "welcome":
            uploader.binary = binary && text.contains("\"binaryUploads\":true")
            return []
        case "dismiss":
            return []
        case "controls":
            guard case .controls(_, let items) = try? HostMessage.decode(text),
                let photo = items.first(where: { $0.id == "photo" })
            else { return fail("controls without photo: \(text.prefix(200))") }
            guard photo.enabled, !photo.busy else { return [] }
            switch uploader.phase {
            case .awaitingControls:
                uploader.phase = .tapped
                return [.text(tap)]
            case .answered:
                uploader.gotIdle = true
            case .tapped, .uploading:
                return []
            }
        case "present":
            guard uploader.phase == .tapped, let modal = scanField("id", in: text) else {
                return fail("unexpected present: \(text.prefix(200))")
            }
            uploader.modal = String(modal)
            uploader.window = intField("uploadWindow", in: text) ?? 8
            uploader.phase = .uploading
            (uploader.file, uploader.chunk, uploader.inFlight) = (0, 0, [])
            return fill()
        case "uploadAck":
            guard uploader.phase == .uploading, !uploader.inFlight.isEmpty else {
                return fail("unexpected uploadAck: \(text.prefix(200))")
            }
            let bytes = uploader.inFlight.removeFirst()
            if state.measuring { state.bytesInWindow += bytes }
            let more = fill()
            guard uploader.inFlight.isEmpty, uploader.file == files.chunks.count else { return more }
            uploader.phase = .answered
            (uploader.gotStatus, uploader.gotIdle) = (false, false)
            let items = files.names.indices.map { index in
                "{\"name\":\"\(files.names[index])\",\"mimeType\":\"image/jpeg\",\"size\":\(files.size),"
                    + "\"sha256\":\"\(files.hashes[index])\"}"
            }
            return [
                .text(
                    "{\"type\":\"result\",\"id\":\"\(uploader.modal)\",\"value\":{\"items\":[\(items.joined(separator: ","))]}}"
                )
            ]
        case "status":
            guard uploader.phase == .answered, text.contains("\"Received \(files.chunks.count) photo") else {
                return fail("unexpected status: \(text.prefix(200))")
            }
            uploader.gotStatus = true
        default:
            return fail("unexpected message: \(text.prefix(300))")
        }
        guard uploader.phase == .answered, uploader.gotStatus, uploader.gotIdle else { return [] }
        state.picks += 1
        if state.measuring { state.picksInWindow[id, default: 0] += 1 }
        uploader.phase = .tapped
        return [.text(tap)]
    }

    /// Runs the workload.
    /// - Returns: The measurements.
    /// - Throws: `WebSocketError.invalidState` when sessions cannot be opened or the host
    ///   breaks a pick (the reason names the session and the message).
    public func run() throws -> Result {
        let files = Self.makeFiles(count: filesPerPick, size: fileBytes)
        let state = Locked(State())
        let box = Locked<WebSocketClient?>(nil)
        let client = try WebSocketClient(
            logger: Logger(label: "bench", settings: LoggerSettings(level: .error)),
            onOpen: { id in
                state.withLock { $0.uploaders[id] = Uploader() }
                let hello = helloText(
                    kind: "bench-upload", name: "upload-\(id.rawValue)", capabilities: ["photoPicker"])
                box.withLock { $0 }?.send(text: hello, to: id)
            },
            onMessage: { id, message in
                guard let client = box.withLock({ $0 }) else { return }
                guard case .text(let text) = message else {
                    state.withLock { $0.failure = $0.failure ?? "session \(id.rawValue): a binary frame" }
                    return
                }
                let binary = self.binary
                for reply in state.withLock({ Self.handle(text, id, files, binary: binary, &$0) }) {
                    client.send(reply, to: id)
                }
            },
            onClose: { id, code, reason in
                state.withLock { state in
                    guard !state.stopping else { return }
                    state.failure = state.failure ?? "session \(id.rawValue) closed (\(code)): \(reason)"
                }
            },
            onFailure: { _, message in state.withLock { $0.failure = $0.failure ?? "connect failed: \(message)" } })
        box.withLock { $0 = client }
        defer {
            state.withLock { $0.stopping = true }
            client.stop(deadline: 2)
        }
        for _ in 0..<sessions { _ = try client.connect(url) }
        let started = waitUntil(seconds: 30) {
            state.withLock { state in
                state.failure != nil
                    || state.uploaders.values.filter { $0.phase != .awaitingControls }.count >= sessions
            }
        }
        if let failure = state.withLock({ $0.failure }) { throw WebSocketError.invalidState(failure) }
        guard started else { throw WebSocketError.invalidState("not every session got its controls in 30 s") }
        Thread.sleep(forTimeInterval: warmupSeconds)
        let cpuBefore = serverPID.flatMap(processCPUSeconds(pid:))
        let start = nowMicros()
        state.withLock { $0.measuring = true }
        Thread.sleep(forTimeInterval: seconds)
        let (bytes, perSession) = state.withLock { state in
            state.measuring = false
            return (state.bytesInWindow, state.picksInWindow)
        }
        let elapsed = (nowMicros() - start) / 1e6
        let cpuAfter = serverPID.flatMap(processCPUSeconds(pid:))
        state.withLock { $0.stopping = true }
        client.stop(deadline: 2)
        let (picks, failure) = state.withLock { ($0.picks, $0.failure) }
        if let failure { throw WebSocketError.invalidState(failure) }
        let idle = sessions - perSession.values.filter { $0 > 0 }.count
        guard idle == 0 else {
            throw WebSocketError.invalidState("\(idle) of \(sessions) sessions completed no pick in the window")
        }
        var cpu: Double?
        if let cpuBefore, let cpuAfter, bytes > 0 { cpu = (cpuAfter - cpuBefore) * 1e3 / (Double(bytes) / 1e6) }
        return Result(
            megabytesPerSecond: Double(bytes) / 1e6 / elapsed, picks: picks, serverCPUMillisPerMegabyte: cpu)
    }
}

/// The integer value of the first `"name":N` in a compact JSON text, or `nil`.
/// - Parameters:
///   - name: The field name.
///   - text: The message.
/// - Returns: The value.
func intField(_ name: String, in text: String) -> Int? {
    guard let range = text.range(of: "\"\(name)\":") else { return nil }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
}
