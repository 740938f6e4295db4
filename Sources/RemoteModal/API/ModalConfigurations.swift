import ModalProtocol

/// What a mail composer starts with.
public struct MailConfiguration: Sendable, Equatable {
    /// Recipients.
    public var to: [String] = []
    /// Copy recipients.
    public var cc: [String] = []
    /// Blind copy recipients.
    public var bcc: [String] = []
    /// The subject.
    public var subject = ""
    /// The body.
    public var body = ""
    /// Whether the body is HTML.
    public var isHTML = false

    /// An empty mail.
    public init() {}
}

/// How a mail composer ended, and the mail as the person left it. Cancelling is a
/// value (`status == .cancelled`), not an error.
public struct MailComposeResult: Sendable, Equatable {
    /// `sent`, `saved`, `cancelled` or `failed`.
    public var status: MailStatus
    /// The mail as edited.
    public var mail: MailConfiguration
}

/// What a message composer starts with.
public struct MessageConfiguration: Sendable, Equatable {
    /// Recipients (phone numbers or handles).
    public var recipients: [String] = []
    /// The subject, if any.
    public var subject: String?
    /// The body.
    public var body = ""

    /// An empty message.
    public init() {}
}

/// How a message composer ended, and the message as the person left it.
public struct MessageComposeResult: Sendable, Equatable {
    /// `sent`, `cancelled` or `failed`.
    public var status: MessageStatus
    /// The recipients as edited.
    public var recipients: [String]
    /// The body as edited.
    public var body: String
}

/// What a photo picker offers.
public struct PhotoPickerConfiguration: Sendable, Equatable {
    /// How many items may be picked; 0 means no limit (as PHPickerConfiguration), which
    /// the host caps at 1,000 files, the protocol's array limit.
    public var selectionLimit = 1
    /// `image`, `video`.
    public var filter: [String] = ["image"]
    /// The most bytes all picked files may add up to.
    public var maxBytes = 10 * 1_048_576

    /// The defaults: one image, at most 10 MiB.
    public init() {}
}

/// What a media picker offers.
public struct MediaPickerConfiguration: Sendable, Equatable {
    /// Media types, for example `audio`.
    public var types: [String] = ["audio"]
    /// Whether several items may be picked.
    public var allowsMultiple = false
    /// The most bytes all picked files may add up to.
    public var maxBytes = 10 * 1_048_576

    /// The defaults: one audio file, at most 10 MiB.
    public init() {}
}

/// A modal kind added by a library user without touching this module: a name (the
/// client advertises `custom:NAME`), an `Encodable` payload and a `Decodable` result.
public protocol CustomModal: SendableMetatype {
    /// What the client receives in `payload`.
    associatedtype Payload: Encodable & Sendable
    /// What the client's `result` value decodes into.
    associatedtype Result: Decodable & Sendable
    /// The custom kind's name.
    static var name: String { get }
}
