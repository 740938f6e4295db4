import Foundation
import RemoteModalProtocol

/// What a picker accepts (a photo picker's `filter`, a media picker's `types`), checked
/// at each file's first chunk: the declared MIME type must be of an accepted kind, and
/// the first bytes must not be a known format of another kind.
struct AcceptedMedia: Sendable, Equatable {
    /// A kind of media, as the top-level MIME type names it.
    enum Kind: String, Sendable, CaseIterable {
        case image, video, audio
    }

    let kinds: Set<Kind>

    init(kinds: Set<Kind>) {
        self.kinds = kinds
    }

    /// A photo picker's `filter`: `image` (`images`, `livePhotos`), `video` (`videos`);
    /// empty or only unknown names: images and videos.
    init(photoFilter: [String]) {
        var kinds: Set<Kind> = []
        for name in photoFilter.map({ $0.lowercased() }) {
            switch name {
            case "image", "images", "livephotos", "screenshots", "panoramas": kinds.insert(.image)
            case "video", "videos", "slomovideos", "timelapsevideos": kinds.insert(.video)
            default: continue
            }
        }
        self.kinds = kinds.isEmpty ? [.image, .video] : kinds
    }

    /// A media picker's `types` (MPMediaType's names): audio ones, video ones, `any`;
    /// empty or only unknown names: audio and video.
    init(mediaTypes: [String]) {
        var kinds: Set<Kind> = []
        for name in mediaTypes.map({ $0.lowercased() }) {
            switch name {
            case "audio", "music", "podcast", "audiobook", "audioitunesu", "anyaudio": kinds.insert(.audio)
            case "video", "movie", "tvshow", "videopodcast", "musicvideo", "videoitunesu", "homevideo", "anyvideo":
                kinds.insert(.video)
            case "any": kinds.formUnion([.audio, .video])
            default: continue
            }
        }
        self.kinds = kinds.isEmpty ? [.audio, .video] : kinds
    }

    /// What is accepted, in words: "only images are accepted here".
    var refusalLead: String {
        switch kinds {
        case [.image]: "only images are accepted here"
        case [.video]: "only videos are accepted here"
        case [.audio]: "only audio is accepted here"
        case [.image, .video]: "only images and videos are accepted here"
        case [.audio, .video]: "only audio and video are accepted here"
        default:
            "only " + Kind.allCases.filter(kinds.contains).map(\.rawValue).joined(separator: ", ")
                + " files are accepted here"
        }
    }

    /// Why a file may not be received, or `nil` when it may.
    /// - Parameters:
    ///   - file: The file's index.
    ///   - name: Its name.
    ///   - mimeType: Its declared MIME type.
    ///   - firstBytes: The bytes of its first chunk.
    /// - Returns: The refusal, for the person to read.
    func refusal(file: Int, name: String, mimeType: String, firstBytes: Data) -> String? {
        let declared = mimeType.lowercased().split(separator: "/").first.flatMap { Kind(rawValue: String($0)) }
        let shownName = name.count > 80 ? String(name.prefix(80)) + "…" : name
        let shownType = mimeType.count > 80 ? String(mimeType.prefix(80)) + "…" : mimeType
        guard let declared, kinds.contains(declared) else {
            return "\(refusalLead): file \(file) ('\(shownName)') is \(shownType.isEmpty ? "of no type" : shownType)"
        }
        guard let sniffed = MediaSniffer.sniff(firstBytes) else { return nil }
        guard sniffed.kinds.contains(declared) else {
            return "\(refusalLead): file \(file) ('\(shownName)') says \(shownType) but its bytes are \(sniffed.name)"
        }
        return nil
    }
}

/// Recognizes common file formats by their first bytes (magic numbers). Only signatures
/// of three bytes or more, so that arbitrary data is not mistaken for a format.
enum MediaSniffer {
    /// A recognized format: how to name it, and the kinds of media it can be (none: not media).
    struct Format: Equatable {
        let name: String
        let kinds: Set<AcceptedMedia.Kind>
    }

    static func sniff(_ data: Data) -> Format? {
        let bytes = [UInt8](data.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return Format(name: "a PNG image", kinds: [.image])
        }
        if starts([0xFF, 0xD8, 0xFF]) { return Format(name: "a JPEG image", kinds: [.image]) }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return Format(name: "a GIF image", kinds: [.image]) }
        if starts(ascii("RIFF")) {
            if starts(ascii("WEBP"), at: 8) { return Format(name: "a WebP image", kinds: [.image]) }
            if starts(ascii("WAVE"), at: 8) { return Format(name: "WAV audio", kinds: [.audio]) }
            if starts(ascii("AVI "), at: 8) { return Format(name: "an AVI video", kinds: [.video]) }
        }
        if starts(ascii("ftyp"), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1":
                return Format(name: "a HEIC image", kinds: [.image])
            case "avif", "avis": return Format(name: "an AVIF image", kinds: [.image])
            case "M4A ", "M4B ", "M4P ", "F4A ": return Format(name: "M4A audio", kinds: [.audio])
            case "qt  ": return Format(name: "a QuickTime video", kinds: [.video])
            default: return Format(name: "an MP4 video", kinds: [.video, .audio])
            }
        }
        // An ID3v2 tag: "ID3", a major version of 2 to 4, a zero revision.
        if starts(ascii("ID3")), bytes.count >= 5, (2...4).contains(bytes[3]), bytes[4] == 0 {
            return Format(name: "MP3 audio", kinds: [.audio])
        }
        if starts(ascii("fLaC")) { return Format(name: "FLAC audio", kinds: [.audio]) }
        if starts(ascii("OggS") + [0]) { return Format(name: "an Ogg file", kinds: [.audio, .video]) }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return Format(name: "a WebM/Matroska file", kinds: [.video, .audio]) }
        if starts(ascii("%PDF-")) { return Format(name: "a PDF document", kinds: []) }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return Format(name: "a ZIP archive", kinds: []) }
        if starts([0x7F, 0x45, 0x4C, 0x46]) { return Format(name: "an ELF program", kinds: []) }
        if starts(ascii("MZ")) && bytes.count >= 16 && starts([0x90, 0x00], at: 2) {
            return Format(name: "a Windows program", kinds: [])
        }
        return nil
    }
}
