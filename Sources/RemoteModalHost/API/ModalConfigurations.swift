import Foundation
import RemoteModalProtocol

/// A file attached to a mail by the host (MFMailComposeViewController's
/// `addAttachmentData(_:mimeType:fileName:)`).
public struct MailAttachmentFile: Sendable, Equatable {
    /// The bytes.
    public var data: Data
    /// The MIME type.
    public var mimeType: String
    /// The file name the person sees; unique within one mail.
    public var fileName: String

    /// Creates an attachment.
    /// - Parameters:
    ///   - data: The bytes.
    ///   - mimeType: The MIME type.
    ///   - fileName: The file name.
    public init(data: Data, mimeType: String, fileName: String) {
        self.data = data
        self.mimeType = mimeType
        self.fileName = fileName
    }
}

/// How a web authentication session is opened (ASWebAuthenticationSession's
/// configuration), carried to clients that can honour it; a browser tab or a kiosk's QR
/// code cannot, and ignores it.
public typealias WebAuthenticationConfiguration = WebAuthenticationOptions

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
    /// Whether the body is HTML (clients show it as sanitized HTML or readable text).
    public var isHTML = false
    /// The preferred sending address (`setPreferredSendingEmailAddress`).
    public var from: String?
    /// Files attached by the host: at most `MailAttachment.maxTotalBytes` (768 KiB) in
    /// all, with distinct file names; past that the composer fails with
    /// `RemoteModalError.invalidConfiguration` before anything is sent.
    public var attachments: [MailAttachmentFile] = []

    /// An empty mail.
    public init() {}

    /// Attaches a file, as MFMailComposeViewController does.
    /// - Parameters:
    ///   - data: The bytes.
    ///   - mimeType: The MIME type.
    ///   - fileName: The file name.
    public mutating func addAttachmentData(_ data: Data, mimeType: String, fileName: String) {
        attachments.append(MailAttachmentFile(data: data, mimeType: mimeType, fileName: fileName))
    }
}

/// How a mail composer ended, and the mail as the person left it. Cancelling is a
/// value (`status == .cancelled`), not an error.
public struct MailComposeResult: Sendable, Equatable {
    /// `sent`, `saved`, `cancelled` or `failed`.
    public var status: MailStatus
    /// The mail as edited: `attachments` holds the host's attachments the mail kept (all
    /// of them when the client does not report which), `from` the sending address.
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
    /// The subject as edited (the one presented when the client does not report it).
    public var subject: String?

    /// Creates a result.
    /// - Parameters:
    ///   - status: The outcome.
    ///   - recipients: The recipients.
    ///   - body: The body.
    ///   - subject: The subject.
    public init(status: MessageStatus, recipients: [String], body: String, subject: String? = nil) {
        self.status = status
        self.recipients = recipients
        self.body = body
        self.subject = subject
    }
}

/// What a photo picker offers.
public struct PhotoPickerConfiguration: Sendable, Equatable {
    /// How many items may be picked; 0 means no limit (as PHPickerConfiguration), which
    /// the host caps at 1,000 files, the protocol's array limit.
    public var selectionLimit = 1
    /// What may be picked: `.images` (the default), `.videos`, `.any(of: [.images,
    /// .videos])`, or wire names (`["image", "video"]`); `nil` or empty: both. The host
    /// refuses a file of another type with `upload_invalid` ("only images are accepted
    /// here").
    public var filter: PickerFilter? = .images
    /// The most bytes all picked files may add up to.
    public var maxBytes = 10 * 1_048_576
    /// A line shown above the picker (`prompt` on the wire).
    public var prompt: String?

    /// The defaults: one image, at most 10 MiB.
    public init() {}
}

/// What a media picker offers.
public struct MediaPickerConfiguration: Sendable, Equatable {
    /// Media types, as `MPMediaType` spells them: `.music`, `.podcast`, `.audioBook`,
    /// `.anyAudio` (audio), `.movie`, `.tvShow`, `.musicVideo`, `.anyVideo` (video), `.any`,
    /// or wire names (`["audio"]`, the default); empty: audio and video. The host refuses
    /// a file of another type.
    public var types: MediaTypes = ["audio"]
    /// Whether several items may be picked.
    public var allowsMultiple = false
    /// The most bytes all picked files may add up to.
    public var maxBytes = 10 * 1_048_576
    /// A line shown above the picker (MPMediaPickerController's `prompt`).
    public var prompt: String?

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
