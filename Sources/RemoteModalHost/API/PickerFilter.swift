/// What a photo picker offers: images, videos or both, spelled as PhotoKit's
/// `PHPickerFilter` is (`.images`, `.videos`, `.any(of: [.images, .videos])`), so a port's
/// `$0.filter = .images` compiles as it stands.
///
/// An array literal of wire names (`["image", "video"]`) works too; an empty filter, or
/// `nil` in `PhotoPickerConfiguration.filter`, offers images and videos.
public struct PickerFilter: Sendable, Hashable, ExpressibleByArrayLiteral, ExpressibleByStringLiteral {
    /// The wire names, in order, without repeats (`image`, `video`).
    public let kinds: [String]

    /// A filter of wire names.
    /// - Parameter kinds: `image`, `video`; repeats are dropped.
    public init(kinds: [String]) {
        var seen = Set<String>()
        self.kinds = kinds.filter { seen.insert($0).inserted }
    }

    /// One wire name: `"image"` or `"video"`.
    /// - Parameter value: The name.
    public init(stringLiteral value: String) { self.init(kinds: [value]) }

    /// Several filters together (`[.images, .videos]`, or `["image", "video"]`).
    /// - Parameter elements: The filters.
    public init(arrayLiteral elements: PickerFilter...) { self.init(kinds: elements.flatMap(\.kinds)) }

    /// Images (photos, screenshots, live photos).
    public static let images = PickerFilter(kinds: ["image"])
    /// Videos.
    public static let videos = PickerFilter(kinds: ["video"])
    /// Live photos: on a remote screen, images (`image` on the wire).
    public static let livePhotos = images

    /// Any of several filters, as `PHPickerFilter.any(of:)`.
    /// - Parameter filters: The filters.
    /// - Returns: Their union.
    public static func any(of filters: [PickerFilter]) -> PickerFilter { PickerFilter(kinds: filters.flatMap(\.kinds)) }
}

/// What a media picker offers, spelled as MediaPlayer's `MPMediaType` is (`.music`,
/// `.anyAudio`, `[.music, .podcast]`, `.anyVideo`, `.any`), so a port compiles as it stands.
///
/// An array literal of wire names (`["audio"]`) works too; an empty set offers audio and
/// video.
public struct MediaTypes: Sendable, Hashable, ExpressibleByArrayLiteral, ExpressibleByStringLiteral {
    /// The wire names, in order, without repeats (see `MediaPickerConfiguration.types`).
    public let names: [String]

    /// Media types of wire names.
    /// - Parameter names: `audio`, `music`, `podcast`, `audioBook`, `anyAudio`, `video`,
    ///   `movie`, `tvShow`, `videoPodcast`, `musicVideo`, `videoITunesU`, `homeVideo`,
    ///   `anyVideo`, `any`; repeats are dropped.
    public init(names: [String]) {
        var seen = Set<String>()
        self.names = names.filter { seen.insert($0).inserted }
    }

    /// One wire name, for example `"audio"`.
    /// - Parameter value: The name.
    public init(stringLiteral value: String) { self.init(names: [value]) }

    /// Several types together (`[.music, .podcast]`, or `["audio", "video"]`).
    /// - Parameter elements: The types.
    public init(arrayLiteral elements: MediaTypes...) { self.init(names: elements.flatMap(\.names)) }

    /// Music.
    public static let music = MediaTypes(names: ["music"])
    /// Podcasts.
    public static let podcast = MediaTypes(names: ["podcast"])
    /// Audio books.
    public static let audioBook = MediaTypes(names: ["audioBook"])
    /// Any audio.
    public static let anyAudio = MediaTypes(names: ["anyAudio"])
    /// Movies.
    public static let movie = MediaTypes(names: ["movie"])
    /// TV shows.
    public static let tvShow = MediaTypes(names: ["tvShow"])
    /// Video podcasts.
    public static let videoPodcast = MediaTypes(names: ["videoPodcast"])
    /// Music videos.
    public static let musicVideo = MediaTypes(names: ["musicVideo"])
    /// Any video.
    public static let anyVideo = MediaTypes(names: ["anyVideo"])
    /// Audio and video.
    public static let any = MediaTypes(names: ["any"])
}
