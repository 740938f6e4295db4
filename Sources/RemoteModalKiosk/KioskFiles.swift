import Foundation
import RemoteModalClient
import RemoteModalProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A file on this disk picked by path for a picker, read in chunks as the upload asks.
///
/// Only regular files are taken: never a folder, a device, a pipe, or anything under
/// `/proc`, `/sys` or `/dev` (reading `/dev/zero` would never end, `/proc` files change
/// as they are read), and the person is told what was refused and why.
public struct DiskFile: ClientFile {
    /// Why paths were not taken, in words for the person.
    public struct Refusal: Error, Equatable {
        /// The words.
        public var message: String
    }

    /// The file's path, resolved.
    public let path: String
    /// The name sent to the host.
    public let name: String
    /// The MIME type, the one its first bytes are (the host judges them again).
    public internal(set) var mimeType: String
    /// The size in bytes when it was picked.
    public let size: Int

    /// The places no picker reads from.
    static let systemPlaces = ["/proc", "/sys", "/dev"]

    /// Checks the paths a person typed for a picker and opens them.
    /// - Parameters:
    ///   - paths: The paths (`~` allowed).
    ///   - modal: The picker (for its limits).
    /// - Returns: The files, or what was refused.
    public static func open(_ paths: [String], for modal: ModalDescription) -> Result<[DiskFile], Refusal> {
        let (limit, maxBytes): (Int, Int)
        let accepted: AcceptedMedia
        switch modal {
        // Selection limit 0: no limit but the protocol's 1,000 files.
        case .photoPicker(let selection, let filter, let bytes, _):
            (limit, maxBytes) = (selection == 0 ? 1_000 : selection, bytes)
            accepted = AcceptedMedia(photoFilter: filter)
        case .mediaPicker(let types, let multiple, let bytes, _):
            (limit, maxBytes) = (multiple ? 1_000 : 1, bytes)
            accepted = AcceptedMedia(mediaTypes: types)
        default: return .failure(Refusal(message: "This is not a picker."))
        }
        guard !paths.isEmpty else { return .failure(Refusal(message: "Type the path of at least one file.")) }
        var picked: [(file: DiskFile, typed: String)] = []
        for typed in paths {
            switch file(typed) {
            case .success(let file): picked.append((file, typed))
            case .failure(let refusal): return .failure(refusal)
            }
        }
        let files = picked.map(\.file)
        // The limits first, before anything is read; then each file's first bytes.
        let total = files.reduce(0) { $0 + $1.size }
        guard files.count <= limit, total <= maxBytes else {
            return .failure(
                Refusal(
                    message: "Up to \(KioskModel.files(limit)), \(KioskModel.format(maxBytes)) in all; these are "
                        + "\(KioskModel.files(files.count)), \(KioskModel.format(total))."))
        }
        var judgedFiles: [DiskFile] = []
        for (file, typed) in picked {
            switch judged(file, typed: typed, accepted: accepted) {
            case .success(let file): judgedFiles.append(file)
            case .failure(let refusal): return .failure(refusal)
            }
        }
        return .success(judgedFiles)
    }

    static func file(_ typed: String) -> Result<DiskFile, Refusal> {
        let expanded = (typed as NSString).expandingTildeInPath
        let resolved = URL(fileURLWithPath: expanded).resolvingSymlinksInPath().path
        if let place = systemPlaces.first(where: { resolved == $0 || resolved.hasPrefix($0 + "/") }) {
            return .failure(
                Refusal(message: "Not sent: \(typed) is in \(place), a system place; only ordinary files are sent."))
        }
        var info = stat()
        guard stat(resolved, &info) == 0, access(resolved, R_OK) == 0 else {
            return .failure(Refusal(message: "Cannot read \(typed)"))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = info.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not an ordinary file (a device, a pipe...)"
            return .failure(Refusal(message: "Not sent: \(typed) is \(what); only ordinary files are sent."))
        }
        let name = (resolved as NSString).lastPathComponent
        return .success(DiskFile(path: resolved, name: name, mimeType: mimeType(name), size: Int(info.st_size)))
    }

    /// The file judged by its first bytes against what the picker accepts, as the host judges
    /// it (docs/protocol.md, section 7): a file that is not of an accepted kind never leaves
    /// this disk (a hostile host asking for a photo must not be sent `/etc/shadow` because
    /// its path was typed). Its MIME type is the one its bytes are.
    static func judged(_ file: DiskFile, typed: String, accepted: AcceptedMedia) -> Result<DiskFile, Refusal> {
        let head: Data
        do {
            head = Data(try file.head(MediaSniffer.headLength))
        } catch {
            return .failure(Refusal(message: "Cannot read \(typed)"))
        }
        let sniffed = MediaSniffer.sniff(head)
        let kind = sniffed.flatMap { format in
            AcceptedMedia.Kind.allCases.first { format.kinds.contains($0) && accepted.kinds.contains($0) }
        }
        guard let sniffed, sniffed != MediaSniffer.svg, let kind else {
            let what =
                sniffed.map { $0 == MediaSniffer.svg ? "is an SVG drawing, which may carry scripts" : "is \($0.name)" }
                ?? "does not start as any known format"
            return .failure(
                Refusal(message: "Not sent: \u{201C}\(file.name)\u{201D} \(what); \(accepted.refusalLead)."))
        }
        var judged = file
        judged.mimeType = sniffed.mimeType(as: kind)
        return .success(judged)
    }

    /// The file's first `count` bytes (all of a shorter file).
    func head(_ count: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Refusal(message: "\(name) is gone") }
        defer { try? handle.close() }
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }

    /// Reads a chunk.
    /// - Parameters:
    ///   - offset: The first byte.
    ///   - length: How many.
    /// - Returns: The bytes (fewer if the file shrank: the client core then stops the upload).
    /// - Throws: When the file cannot be opened any more.
    public func read(offset: Int, length: Int) async throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Refusal(message: "\(name) is gone") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(max(0, offset)))
        return [UInt8](try handle.read(upToCount: max(0, length)) ?? Data())
    }

    static func mimeType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "heif": "image/heif"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "aac": "audio/aac"
        case "ogg", "oga": "audio/ogg"
        case "flac": "audio/flac"
        case "wav": "audio/wav"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "txt": "text/plain"
        case "pdf": "application/pdf"
        default: "application/octet-stream"
        }
    }
}
