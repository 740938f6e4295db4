import RemoteModalCrypto
import RemoteModalProtocol

/// One picker's uploads as the conformance host holds them: the bytes of each file, the
/// chunks in flight on the current connection against the window, and the rules of
/// protocol.md section 7 a chunk is judged on. Pure: the context sends what it returns.
struct UploadState: Sendable {
    struct File: Sendable, Equatable {
        var name: String
        var mimeType: String
        var size: Int
        var bytes: [UInt8]
        var complete: Bool
    }

    /// What became of a chunk.
    enum Outcome: Sendable, Equatable {
        /// Stored; acknowledge `received` bytes of `file`.
        case stored(file: Int, received: Int)
        /// Beyond the window: not stored (`rate_limited`).
        case overrun(inFlight: Int)
        /// Refused (`upload_invalid`), with the bytes of the file now held.
        case invalid(file: Int, held: Int, reason: String)
        /// Refused as well, but sent before the client could see an earlier refusal (a chunk
        /// of the window behind a refused one does not continue the bytes held): replied
        /// to, not judged again.
        case inFlight(file: Int, held: Int, reason: String)
    }

    static let chunkLimit = 32_768

    let window: Int
    /// MIME type prefixes the picker takes (`image/`, `audio/`...).
    let accepts: [String]
    var files: [Int: File] = [:]
    /// Chunks stored and not yet acknowledged on the current connection.
    var inFlight = 0
    /// The largest number of chunks the client had in flight.
    var maxInFlight = 0
    var chunksStored = 0
    /// Chunks that may still come from behind the last refusal, and the file they are of.
    private(set) var grace = 0
    private(set) var graceFile = 0

    init(window: Int, accepts: [String]) {
        self.window = window
        self.accepts = accepts
    }

    /// The bytes held per file, in file order (the re-sent `present`'s `received`).
    var received: [(file: Int, bytes: Int)] {
        files.keys.sorted().compactMap { index in
            let held = files[index]?.bytes.count ?? 0
            return held > 0 ? (index, held) : nil
        }
    }

    /// The connection dropped: acknowledgements held back are never sent.
    mutating func connectionLost() { inFlight = 0 }

    /// Acknowledgements sent for `count` chunks.
    mutating func acknowledged(_ count: Int) { inFlight = max(0, inFlight - count) }

    /// Judges one `upload` message. After a refusal, at most `window - 1` chunks of that file
    /// that do not continue the bytes held are the ones that were in flight behind it
    /// (`inFlight`); a chunk stored for that file ends the allowance.
    mutating func receive(_ chunk: JSONValue) -> Outcome {
        let outcome = judge(chunk)
        switch outcome {
        case .stored(let file, _):
            if file == graceFile { grace = 0 }
        case .invalid(let file, let held, let reason):
            if grace > 0, file == graceFile, reason.hasPrefix("offset ") {
                grace -= 1
                return .inFlight(file: file, held: held, reason: reason)
            }
            (grace, graceFile) = (window - 1, file)
        case .overrun:
            (grace, graceFile) = (window - 1, chunk["file"]?.intValue ?? 0)
        case .inFlight:
            break
        }
        return outcome
    }

    private mutating func judge(_ chunk: JSONValue) -> Outcome {
        guard let index = chunk["file"]?.intValue, (0...999).contains(index) else {
            return .invalid(file: 0, held: 0, reason: "`file` is missing or out of range")
        }
        let held = files[index]?.bytes.count ?? 0
        guard inFlight < window else { return .overrun(inFlight: inFlight) }
        guard let name = chunk["name"]?.stringValue, let mimeType = chunk["mimeType"]?.stringValue,
            let size = chunk["size"]?.intValue, size >= 0, let offset = chunk["offset"]?.intValue,
            let data = chunk["data"]?.stringValue, let last = chunk["last"]?.boolValue
        else {
            return .invalid(file: index, held: held, reason: "a field of the chunk is missing or of the wrong type")
        }
        guard let bytes = Base64.decode(data) else {
            return .invalid(file: index, held: held, reason: "`data` is not standard base64")
        }
        guard bytes.count <= Self.chunkLimit else {
            return .invalid(file: index, held: held, reason: "a chunk of \(bytes.count) bytes (at most 32,768)")
        }
        if offset == 0 {
            guard accepts.isEmpty || accepts.contains(where: { mimeType.hasPrefix($0) }) else {
                return .invalid(file: index, held: held, reason: "type \(mimeType) is not one the picker takes")
            }
            files[index] = File(name: name, mimeType: mimeType, size: size, bytes: [], complete: false)
        } else {
            guard var file = files[index], !file.complete, offset == file.bytes.count else {
                return .invalid(
                    file: index, held: held, reason: "offset \(offset) does not continue the \(held) bytes held")
            }
            guard file.name == name, file.size == size, file.mimeType == mimeType else {
                files[index] = nil
                return .invalid(file: index, held: 0, reason: "the file's name, type or size changed")
            }
            file.bytes.reserveCapacity(size)
            files[index] = file
        }
        guard var file = files[index] else { return .invalid(file: index, held: 0, reason: "no such file") }
        file.bytes += bytes
        if file.bytes.count > size {
            files[index] = nil
            return .invalid(file: index, held: 0, reason: "the chunk goes past the declared size \(size)")
        }
        if last {
            guard file.bytes.count == size else {
                files[index] = nil
                return .invalid(file: index, held: 0, reason: "`last` with \(file.bytes.count) of \(size) bytes")
            }
            file.complete = true
        }
        files[index] = file
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        chunksStored += 1
        return .stored(file: index, received: file.bytes.count)
    }

    /// The rule a refusal's reason (as `receive` words it) quotes.
    static func rule(for reason: String) -> ConformanceRule {
        if reason.contains("base64") { return .base64 }
        if reason.hasPrefix("a chunk of") { return .chunkSize }
        if reason.contains("name, type or size changed") { return .chunkFields }
        if reason.hasPrefix("`last`") || reason.contains("past the declared size") { return .lastChunk }
        if reason.contains("is not one the picker takes") { return .accepted }
        if reason.hasPrefix("a field") || reason.hasPrefix("`file`") { return .chunkShape }
        return .chunks
    }

    /// What is wrong with a picker's `result` value against the bytes held, or nil.
    func judge(result value: JSONValue) -> String? {
        guard let items = value["items"]?.arrayValue else { return "the result has no `items` list" }
        guard items.count == files.count, files.keys.sorted() == Array(0..<files.count) else {
            return "the result lists \(items.count) file(s), the host holds \(files.count)"
        }
        for (index, item) in items.enumerated() {
            guard let file = files[index] else { return "file \(index) was never uploaded" }
            guard file.complete else {
                return "file \(index) is incomplete (\(file.bytes.count) of \(file.size) bytes)"
            }
            let hash = SHA256.hash(file.bytes).hex
            if item["name"]?.stringValue != file.name { return "item \(index): the name differs from the upload's" }
            if item["mimeType"]?.stringValue != file.mimeType {
                return "item \(index): the mimeType differs from the upload's"
            }
            if item["size"]?.intValue != file.bytes.count {
                return "item \(index): size \(item["size"]?.intValue ?? -1), the host holds \(file.bytes.count) bytes"
            }
            if item["sha256"]?.stringValue != hash {
                return
                    "item \(index): sha256 \(item["sha256"]?.stringValue ?? "none") is not the SHA-256 of the bytes uploaded (\(hash))"
            }
        }
        return nil
    }
}
