import Foundation
import ModalProtocol

/// Reassembles one picker's uploads: offsets contiguous, sizes consistent, total within
/// `maxBytes`; memory bounded by spooling each file past `spoolThreshold` to a temporary
/// file. Executor-confined.
final class UploadAssembly: @unchecked Sendable {
    private final class FileInProgress {
        let name: String
        let mimeType: String
        let size: Int
        var received = 0
        var memory = Data()
        var spool: FileHandle?
        var spoolURL: URL?
        var hash = SHA256()
        var complete = false

        init(name: String, mimeType: String, size: Int) {
            self.name = name
            self.mimeType = mimeType
            self.size = size
        }

        func discard() {
            try? spool?.close()
            if let spoolURL { try? FileManager.default.removeItem(at: spoolURL) }
            spool = nil
            spoolURL = nil
            memory = Data()
        }
    }

    let maxBytes: Int
    let maxFiles: Int
    let spoolThreshold: Int
    private var files: [Int: FileInProgress] = [:]

    init(maxBytes: Int, maxFiles: Int, spoolThreshold: Int = 256 * 1024) {
        self.maxBytes = maxBytes
        self.maxFiles = maxFiles
        self.spoolThreshold = spoolThreshold
    }

    private var bytesAccounted: Int { files.values.reduce(0) { $0 + $1.size } }

    /// Adds a chunk.
    /// - Throws: `upload_invalid` naming the violation; the caller then calls `reset()`.
    func add(_ chunk: UploadChunk) throws(ProtocolError) {
        func invalid(_ reason: String) -> ProtocolError { ProtocolError(.uploadInvalid, reason, ref: "upload") }
        guard chunk.file < maxFiles else { throw invalid("file \(chunk.file) is past the selection limit") }
        guard let bytes = Data(base64Encoded: chunk.data) else { throw invalid("field 'data' is not base64") }
        guard bytes.count <= 32 * 1024 else { throw invalid("a chunk carries at most 32 KiB") }
        if chunk.offset == 0 {
            // A file starts (again, after a reconnect): whatever came before is dropped.
            files.removeValue(forKey: chunk.file)?.discard()
            guard chunk.size >= 0, bytesAccounted + chunk.size <= maxBytes else {
                throw invalid("the files add up to more than \(maxBytes) bytes")
            }
            files[chunk.file] = FileInProgress(name: chunk.name, mimeType: chunk.mimeType, size: chunk.size)
        }
        guard let file = files[chunk.file], !file.complete else {
            throw invalid("file \(chunk.file) must start at offset 0")
        }
        guard chunk.offset == file.received else {
            throw invalid("offset \(chunk.offset) is not contiguous (expected \(file.received))")
        }
        guard chunk.size == file.size, chunk.name == file.name else {
            throw invalid("file \(chunk.file) changed its name or size")
        }
        guard file.received + bytes.count <= file.size else {
            throw invalid("file \(chunk.file) is longer than its size")
        }
        file.hash.update(bytes)
        file.received += bytes.count
        if file.spool == nil, file.memory.count + bytes.count > spoolThreshold {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "remote-modal-upload-\(UUID().uuidString)")
            _ = FileManager.default.createFile(
                atPath: url.path, contents: file.memory, attributes: [.posixPermissions: 0o600])
            file.spool = try? FileHandle(forWritingTo: url)
            _ = try? file.spool?.seekToEnd()
            file.spoolURL = url
            file.memory = Data()
            guard file.spool != nil else { throw invalid("the host could not store the upload") }
        }
        if let spool = file.spool {
            do { try spool.write(contentsOf: bytes) } catch { throw invalid("the host could not store the upload") }
        } else {
            file.memory.append(bytes)
        }
        if chunk.last {
            guard file.received == file.size else {
                throw invalid("file \(chunk.file) ended after \(file.received) of \(file.size) bytes")
            }
            file.complete = true
            try? file.spool?.close()
            file.spool = nil
        }
    }

    /// Checks the result's items against what was received and hands over the files.
    /// - Throws: `upload_invalid` when an item does not match the received bytes.
    func finish(_ items: [PickedItem]) throws(ProtocolError) -> [PickedFile] {
        func invalid(_ reason: String) -> ProtocolError { ProtocolError(.uploadInvalid, reason, ref: "result") }
        guard items.count == files.count else {
            throw invalid("the result lists \(items.count) files but \(files.count) were uploaded")
        }
        var picked: [PickedFile] = []
        for (index, item) in items.enumerated() {
            guard let file = files[index], file.complete else { throw invalid("file \(index) was not fully uploaded") }
            guard item.size == file.size, item.name == file.name else {
                throw invalid("file \(index): name or size differs from the upload")
            }
            guard item.sha256 == file.hash.hexDigest() else { throw invalid("file \(index): SHA-256 does not match") }
            picked.append(
                PickedFile(
                    name: file.name, mimeType: file.mimeType, size: file.size, sha256: item.sha256,
                    data: file.spoolURL == nil ? file.memory : nil, fileURL: file.spoolURL))
        }
        // Ownership of spooled files passed to the PickedFiles.
        files = [:]
        return picked
    }

    /// Drops everything received (a violation, or the modal ended).
    func reset() {
        for file in files.values { file.discard() }
        files = [:]
    }
}
