import Foundation

/// What a picker accepts (a photo picker's `filter`, a media picker's `types`): the
/// declared MIME type must be of an accepted kind (checked at a file's first chunk), and
/// the file's bytes must start as a known format of that kind (checked once the host holds
/// `MediaSniffer.headLength` bytes of it, or all of a shorter file).
package struct AcceptedMedia: Sendable, Equatable {
    /// A kind of media, as the top-level MIME type names it.
    package enum Kind: String, Sendable, CaseIterable {
        case image, video, audio
    }

    package let kinds: Set<Kind>

    package init(kinds: Set<Kind>) {
        self.kinds = kinds
    }

    /// A photo picker's `filter`: `image` (`images`, `livePhotos`), `video` (`videos`);
    /// empty or only unknown names: images and videos.
    package init(photoFilter: [String]) {
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
    package init(mediaTypes: [String]) {
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
    package var refusalLead: String {
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

    /// Why a file's declared type may not be received (checked at its first chunk, before
    /// any byte is held), or `nil` when it may.
    /// - Parameters:
    ///   - file: The file's index.
    ///   - name: Its name.
    ///   - mimeType: Its declared MIME type.
    /// - Returns: The refusal, for the person to read.
    package func declaredRefusal(file: Int, name: String, mimeType: String) -> String? {
        guard let declared = Self.declaredKind(mimeType), kinds.contains(declared) else {
            return "\(refusalLead): file \(file) ('\(Self.shown(name))') is "
                + (mimeType.isEmpty ? "of no type" : Self.shown(mimeType))
        }
        return nil
    }

    /// Judges a file's bytes: they must start as a
    /// known format of the declared kind (`MediaSniffer`). Judged on the file's first
    /// `MediaSniffer.headLength` bytes (all of them for a shorter file), gathered across
    /// chunks: what the first chunk alone says is never enough.
    /// - Parameters:
    ///   - file: The file's index.
    ///   - name: Its name.
    ///   - mimeType: Its declared MIME type (of an accepted kind, `declaredRefusal`).
    ///   - head: The file's first bytes.
    /// - Returns: The MIME type the bytes were judged to be (`image/png` for PNG bytes, whatever
    ///   was declared), or the refusal, for the person to read.
    package func judge(file: Int, name: String, mimeType: String, head: Data) -> Result<String, Refusal> {
        guard let declared = Self.declaredKind(mimeType) else {
            return .failure(Refusal(text: declaredRefusal(file: file, name: name, mimeType: mimeType) ?? ""))
        }
        let what = "\(refusalLead): file \(file) ('\(Self.shown(name))')"
        guard let sniffed = MediaSniffer.sniff(head) else {
            return .failure(Refusal(text: "\(what) does not start as any known \(declared.rawValue) format"))
        }
        if sniffed == MediaSniffer.svg {
            return .failure(Refusal(text: "\(what) is an SVG drawing, which may carry scripts and is not accepted"))
        }
        guard sniffed.kinds.contains(declared) else {
            return .failure(Refusal(text: "\(what) says \(Self.shown(mimeType)) but its bytes are \(sniffed.name)"))
        }
        return .success(sniffed.mimeType(as: declared))
    }

    /// Why a file's bytes are refused, for the person to read.
    package struct Refusal: Error, Equatable {
        package let text: String
    }

    private static func declaredKind(_ mimeType: String) -> Kind? {
        mimeType.lowercased().split(separator: "/").first.flatMap { Kind(rawValue: String($0)) }
    }

    private static func shown(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}

/// Recognizes file formats by their first bytes (magic numbers): the media formats a picker
/// accepts, and a few others so that a refusal can name them. Only signatures of three bytes
/// or more, with their fixed fields checked, so that arbitrary data is not mistaken for a
/// format. Pure.
package enum MediaSniffer {
    /// A recognized format: how to name it, and the kinds of media it can be (none: not media).
    package struct Format: Equatable {
        package let name: String
        package let kinds: Set<AcceptedMedia.Kind>
        /// The MIME subtype the bytes are, under each of `kinds` (`png`: `image/png`).
        var subtype = ""

        /// The MIME type of these bytes as a file of `kind` (one of `kinds`; a format of
        /// several kinds, such as MP4, is `video/mp4` for a video picker, `audio/mp4` for audio).
        package func mimeType(as kind: AcceptedMedia.Kind) -> String { kind.rawValue + "/" + subtype }
    }

    /// The most bytes any rule reads (an MPEG transport stream's third sync byte is at 376).
    package static let headLength = 512

    /// An SVG drawing: an image to a browser, but a document that may carry scripts.
    package static let svg = Format(name: "an SVG drawing", kinds: [])

    /// The format `data` starts as, or `nil` when it starts as none known.
    /// - Parameter data: A file's first bytes (up to `headLength`; all of a shorter file).
    package static func sniff(_ data: Data) -> Format? {
        let bytes = [UInt8](data.prefix(headLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        func image(_ name: String, _ subtype: String) -> Format {
            Format(name: name, kinds: [.image], subtype: subtype)
        }
        func video(_ name: String, _ subtype: String) -> Format {
            Format(name: name, kinds: [.video], subtype: subtype)
        }
        func audio(_ name: String, _ subtype: String) -> Format {
            Format(name: name, kinds: [.audio], subtype: subtype)
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return image("a PNG image", "png") }
        if starts([0xFF, 0xD8, 0xFF]) { return image("a JPEG image", "jpeg") }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return image("a GIF image", "gif") }
        if starts(ascii("II*\u{0}")) || starts(ascii("MM\u{0}*")) { return image("a TIFF image", "tiff") }
        if isBMP(bytes) { return image("a BMP image", "bmp") }
        if starts(ascii("RIFF")) {
            if starts(ascii("WEBP"), at: 8) { return image("a WebP image", "webp") }
            if starts(ascii("WAVE"), at: 8) { return audio("WAV audio", "wav") }
            if starts(ascii("AVI "), at: 8) { return video("an AVI video", "x-msvideo") }
        }
        if starts(ascii("ftyp"), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1":
                return image("a HEIC image", "heic")
            case "avif", "avis": return image("an AVIF image", "avif")
            case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ": return audio("M4A audio", "mp4")
            case "qt  ": return video("a QuickTime video", "quicktime")
            case "crx ": return image("a Canon raw image", "x-canon-cr3")
            default: return Format(name: "an MP4 video", kinds: [.video, .audio], subtype: "mp4")
            }
        }
        // QuickTime files from before `ftyp`: a top-level atom's type at offset 4.
        for atom in ["moov", "mdat", "wide", "pnot"] where starts(ascii(atom), at: 4) {
            return video("a QuickTime video", "quicktime")
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) {
            return Format(name: "a WebM/Matroska file", kinds: [.video, .audio], subtype: "webm")
        }
        if starts(ascii("OggS") + [0]) { return Format(name: "an Ogg file", kinds: [.audio, .video], subtype: "ogg") }
        if starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) {
            return Format(name: "a Windows Media file", kinds: [.video, .audio], subtype: "x-ms-asf")
        }
        if starts(ascii("FLV") + [1]) { return video("a Flash video", "x-flv") }
        if starts([0x00, 0x00, 0x01, 0xBA]) { return video("an MPEG video", "mpeg") }
        if bytes.count > 376, bytes[0] == 0x47, bytes[188] == 0x47, bytes[376] == 0x47 {
            return video("an MPEG transport stream", "mp2t")
        }
        // An ID3v2 tag: "ID3", a major version of 2 to 4, a zero revision.
        if starts(ascii("ID3")), bytes.count >= 5, (2...4).contains(bytes[3]), bytes[4] == 0 {
            return audio("MP3 audio", "mpeg")
        }
        if starts(ascii("fLaC")) { return audio("FLAC audio", "flac") }
        if starts(ascii("FORM")), starts(ascii("AIFF"), at: 8) || starts(ascii("AIFC"), at: 8) {
            return audio("AIFF audio", "aiff")
        }
        if starts(ascii("caff")) { return audio("Core Audio", "x-caf") }
        if starts(ascii("#!AMR")) { return audio("AMR audio", "amr") }
        if starts(ascii("MThd")) { return audio("a MIDI file", "midi") }
        if let frame = mpegAudioFrame(bytes) { return audio(frame, frame == "AAC audio" ? "aac" : "mpeg") }
        if starts(ascii("%PDF-")) { return Format(name: "a PDF document", kinds: []) }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return Format(name: "a ZIP archive", kinds: []) }
        if starts([0x7F, 0x45, 0x4C, 0x46]) { return Format(name: "an ELF program", kinds: []) }
        if starts(ascii("MZ")) && bytes.count >= 16 && starts([0x90, 0x00], at: 2) {
            return Format(name: "a Windows program", kinds: [])
        }
        if isSVG(bytes) { return svg }
        return nil
    }

    /// A BMP file header: "BM", zero reserved fields, and a known DIB header size.
    private static func isBMP(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 18, bytes[0] == 0x42, bytes[1] == 0x4D, bytes[6..<10].allSatisfy({ $0 == 0 }) else {
            return false
        }
        let header = Int(bytes[14]) | Int(bytes[15]) << 8 | Int(bytes[16]) << 16 | Int(bytes[17]) << 24
        return [12, 40, 52, 56, 64, 108, 124].contains(header)
    }

    /// An MPEG audio frame header (MP3 without a tag) or an AAC ADTS header.
    private static func mpegAudioFrame(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        if bytes[1] & 0xF6 == 0xF0 { return "AAC audio" }
        let version = (bytes[1] >> 3) & 0x03
        let layer = (bytes[1] >> 1) & 0x03
        let bitrate = bytes[2] >> 4
        let rate = (bytes[2] >> 2) & 0x03
        guard version != 1, layer != 0, bitrate != 0x0F, rate != 0x03 else { return nil }
        return "MP3 audio"
    }

    /// Text whose first element is `<svg`, or an XML or doctype prologue naming it.
    private static func isSVG(_ bytes: [UInt8]) -> Bool {
        var text = String(decoding: bytes, as: UTF8.self).lowercased()
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        text = String(text.drop { $0.isWhitespace })
        return text.hasPrefix("<svg")
            || ((text.hasPrefix("<?xml") || text.hasPrefix("<!doctype")) && text.contains("<svg"))
    }
}
