/// The style of a dialog action.
public enum ActionStyle: String, Sendable, Equatable, CaseIterable {
    /// An ordinary action.
    case `default`
    /// The action that dismisses without doing anything.
    case cancel
    /// An action that destroys or deletes.
    case destructive
}

/// The kind of an alert's text field, which picks the keyboard and masking.
public enum TextFieldKind: String, Sendable, Equatable, CaseIterable {
    /// Plain text.
    case plain
    /// An e-mail address.
    case email
    /// A password (masked).
    case password
    /// A phone number.
    case phoneNumber
    /// A number.
    case number
    /// A URL.
    case url
}

/// The keyboard a text field asks for (`inputmode` in a browser). Clients that do not know
/// a value use their default keyboard.
public struct TextFieldKeyboard: RawRepresentable, Hashable, Sendable {
    /// The wire value.
    public let rawValue: String

    /// Wraps a wire value.
    /// - Parameter rawValue: The value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The ordinary text keyboard.
    public static let `default` = TextFieldKeyboard(rawValue: "default")
    /// An e-mail address keyboard.
    public static let email = TextFieldKeyboard(rawValue: "email")
    /// Digits only.
    public static let numeric = TextFieldKeyboard(rawValue: "numeric")
    /// Digits and a decimal separator.
    public static let decimal = TextFieldKeyboard(rawValue: "decimal")
    /// A phone pad.
    public static let phone = TextFieldKeyboard(rawValue: "phone")
    /// A URL keyboard.
    public static let url = TextFieldKeyboard(rawValue: "url")
}

/// How a text field capitalizes what is typed (`autocapitalize` in a browser).
public struct TextFieldAutocapitalization: RawRepresentable, Hashable, Sendable {
    /// The wire value.
    public let rawValue: String

    /// Wraps a wire value.
    /// - Parameter rawValue: The value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// No automatic capitals.
    public static let none = TextFieldAutocapitalization(rawValue: "none")
    /// The first letter of each word.
    public static let words = TextFieldAutocapitalization(rawValue: "words")
    /// The first letter of each sentence.
    public static let sentences = TextFieldAutocapitalization(rawValue: "sentences")
    /// Every letter.
    public static let characters = TextFieldAutocapitalization(rawValue: "characters")
}

/// One text field of an alert.
///
/// ``keyboard``, ``autocapitalization``, ``contentType`` and ``isSecureTextEntry`` are optional on
/// the wire (omitted when `nil`) and refine what `kind` implies; a client that does not
/// know them ignores them and keeps the `kind`'s behaviour.
public struct TextFieldSpec: Sendable, Equatable {
    /// The field's kind.
    public var kind: TextFieldKind
    /// The placeholder.
    public var placeholder: String?
    /// The initial text.
    public var text: String?
    /// The keyboard (wire `keyboard`).
    public var keyboard: TextFieldKeyboard?
    /// Automatic capitalization (wire `autocapitalize`).
    public var autocapitalization: TextFieldAutocapitalization?
    /// What the field holds, as an HTML `autocomplete` token such as `username`,
    /// `one-time-code` or `email`, so clients can offer autofill (wire `contentType`).
    public var contentType: String?
    /// Whether what is typed is masked (wire `secure`); `nil`: as the `kind` implies.
    public var isSecureTextEntry: Bool?

    /// Creates a text field description.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - placeholder: The placeholder.
    ///   - text: The initial text.
    ///   - keyboard: The keyboard.
    ///   - autocapitalization: Automatic capitalization.
    ///   - contentType: An HTML `autocomplete` token.
    ///   - isSecureTextEntry: Whether what is typed is masked.
    public init(
        kind: TextFieldKind, placeholder: String? = nil, text: String? = nil, keyboard: TextFieldKeyboard? = nil,
        autocapitalization: TextFieldAutocapitalization? = nil, contentType: String? = nil,
        isSecureTextEntry: Bool? = nil
    ) {
        self.kind = kind
        self.placeholder = placeholder
        self.text = text
        self.keyboard = keyboard
        self.autocapitalization = autocapitalization
        self.contentType = contentType
        self.isSecureTextEntry = isSecureTextEntry
    }
}

/// One action (button) of an alert or action sheet.
public struct ActionSpec: Sendable, Equatable {
    /// The title.
    public var title: String
    /// The style.
    public var style: ActionStyle
    /// Whether it can be picked now.
    public var enabled: Bool
    /// Whether it is the default button.
    public var preferred: Bool
    /// The rule that enables it, in words for the person ("Enter an e-mail address and a
    /// password"), shown while it is disabled (wire `explanation`, optional).
    public var explanation: String?

    /// Creates an action description.
    /// - Parameters:
    ///   - title: The title.
    ///   - style: The style.
    ///   - enabled: Whether it can be picked.
    ///   - preferred: Whether it is the default button.
    ///   - explanation: The rule that enables it, in words, shown while it is disabled.
    public init(
        title: String, style: ActionStyle = .default, enabled: Bool = true, preferred: Bool = false,
        explanation: String? = nil
    ) {
        self.title = title
        self.style = style
        self.enabled = enabled
        self.preferred = preferred
        self.explanation = explanation
    }
}

/// The status of a mail composer's outcome.
public enum MailStatus: String, Sendable, Equatable, CaseIterable {
    /// Sent.
    case sent
    /// Saved as a draft.
    case saved
    /// Cancelled by the person (a value, not a failure).
    case cancelled
    /// Sending failed.
    case failed
}

/// The status of a message composer's outcome.
public enum MessageStatus: String, Sendable, Equatable, CaseIterable {
    /// Sent.
    case sent
    /// Cancelled by the person (a value, not a failure).
    case cancelled
    /// Sending failed.
    case failed
}

/// A file the host attaches to a mail composer. The client lists it (name, size) and
/// reports in its result which attachments the mail kept.
public struct MailAttachment: Sendable, Equatable {
    /// The file name shown to the person (unique within one mail).
    public var name: String
    /// The MIME type.
    public var mimeType: String
    /// The bytes, standard base64 with padding, as on the wire (`data`).
    public var base64: String

    /// The most bytes all attachments of one mail may add up to: 768 KiB, so that every
    /// attachment's base64 stays within the protocol's 1 MiB string limit.
    public static let maxTotalBytes = 768 * 1_024

    /// Creates an attachment from its wire form.
    /// - Parameters:
    ///   - name: The file name.
    ///   - mimeType: The MIME type.
    ///   - base64: The bytes, standard base64 with padding.
    public init(name: String, mimeType: String, base64: String) {
        self.name = name
        self.mimeType = mimeType
        self.base64 = base64
    }

    /// The number of bytes ``base64`` decodes to.
    public var size: Int {
        let utf8 = base64.utf8
        let padding = utf8.reversed().prefix(2).prefix { $0 == UInt8(ascii: "=") }.count
        return utf8.count / 4 * 3 - padding
    }

    /// Whether ``base64`` is well-formed standard base64 with padding.
    public var isWellFormed: Bool {
        let utf8 = Array(base64.utf8)
        guard utf8.count % 4 == 0 else { return false }
        for (index, byte) in utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                continue
            case UInt8(ascii: "="):
                // Only the last one or two characters may be padding.
                guard index >= utf8.count - 2, utf8[index...].allSatisfy({ $0 == UInt8(ascii: "=") }) else {
                    return false
                }
            default:
                return false
            }
        }
        return true
    }
}

/// A mail composer's optional fields (omitted from the JSON when unset).
public struct MailOptions: Sendable, Equatable {
    /// The preferred sending address (wire `from`), as `setPreferredSendingEmailAddress`.
    public var from: String?
    /// Files the host attaches (wire `attachments`); at most ``MailAttachment/maxTotalBytes`` in all.
    public var attachments: [MailAttachment]

    /// Creates the options.
    /// - Parameters:
    ///   - from: The preferred sending address.
    ///   - attachments: The attachments.
    public init(from: String? = nil, attachments: [MailAttachment] = []) {
        self.from = from
        self.attachments = attachments
    }
}

/// How a web authentication session is opened, for clients that can honour it (a native
/// client's `ASWebAuthenticationSession`); a browser or kiosk that opens an address
/// cannot, and ignores it. Omitted from the JSON when unset.
public struct WebAuthenticationOptions: Sendable, Equatable {
    /// Ask for a browser session that shares no cookies with the person's normal browser
    /// (wire `prefersEphemeralWebBrowserSession`).
    public var prefersEphemeralWebBrowserSession: Bool?
    /// Header fields to add to the first request (wire `additionalHeaderFields`, an
    /// object of strings).
    public var additionalHeaderFields: [String: String]
    /// The same sign-in through a shorter address of the host that redirects to `url` (wire
    /// `shortURL`, optional): what a client shows to type or as a QR code on a small screen.
    public var shortURL: String?

    /// Creates the options.
    /// - Parameters:
    ///   - prefersEphemeralWebBrowserSession: Whether to ask for an ephemeral session.
    ///   - additionalHeaderFields: Extra header fields.
    ///   - shortURL: A shorter address redirecting to the sign-in page.
    public init(
        prefersEphemeralWebBrowserSession: Bool? = nil, additionalHeaderFields: [String: String] = [:],
        shortURL: String? = nil
    ) {
        self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
        self.additionalHeaderFields = additionalHeaderFields
        self.shortURL = shortURL
    }
}

/// What a modal shows: one case per kind of docs/protocol.md.
public enum ModalDescription: Sendable, Equatable {
    /// An alert with optional text fields.
    case alert(title: String?, message: String?, textFields: [TextFieldSpec], actions: [ActionSpec])
    /// An action sheet, optionally anchored to a control.
    case actionSheet(title: String?, message: String?, source: String?, actions: [ActionSpec])
    /// A web authentication session; `options` only for clients that can honour them.
    case webAuthentication(
        url: String, callbackURL: String?, callbackURLScheme: String?,
        options: WebAuthenticationOptions = WebAuthenticationOptions())
    /// A mail composer; `options` carries the sending address and attachments.
    case mailComposer(
        to: [String], cc: [String], bcc: [String], subject: String, body: String, isHTML: Bool,
        options: MailOptions = MailOptions())
    /// A message composer.
    case messageComposer(recipients: [String], subject: String?, body: String)
    /// A photo picker; `prompt` is shown above it.
    case photoPicker(selectionLimit: Int, filter: [String], maxBytes: Int, prompt: String? = nil)
    /// A media picker; `prompt` is shown above it.
    case mediaPicker(types: [String], allowsMultiple: Bool, maxBytes: Int, prompt: String? = nil)
    /// A custom modal, shown only to clients that advertise `custom:NAME`.
    case custom(name: String, payload: JSONValue)

    /// The wire name of the kind.
    public var kind: String {
        switch self {
        case .alert: "alert"
        case .actionSheet: "actionSheet"
        case .webAuthentication: "webAuthentication"
        case .mailComposer: "mailComposer"
        case .messageComposer: "messageComposer"
        case .photoPicker: "photoPicker"
        case .mediaPicker: "mediaPicker"
        case .custom: "custom"
        }
    }

    /// The capability a client must advertise to be shown this modal.
    public var capability: String {
        if case .custom(let name, _) = self { return "custom:\(name)" }
        return kind
    }

    /// The actions of an alert or action sheet, or `nil` for other kinds.
    public var actions: [ActionSpec]? {
        switch self {
        case .alert(_, _, _, let actions), .actionSheet(_, _, _, let actions): actions
        default: nil
        }
    }

    /// The alert's title or the sheet's title, for logs and scripted clients.
    public var title: String? {
        switch self {
        case .alert(let title, _, _, _), .actionSheet(let title, _, _, _): title
        default: nil
        }
    }
}
