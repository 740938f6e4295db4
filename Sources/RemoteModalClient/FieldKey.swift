import RemoteModalProtocol

/// What a form field means, so an app or a robot fills "the e-mail", not "field 0".
///
/// An alert's field answers to its kind (`email`, `password`, `phoneNumber`, `number`,
/// `url`, `plain`), its `contentType` (`username`, `one-time-code`) and its placeholder;
/// the first field that answers is the one. Composers have fixed keys (`to`, `subject`, ...).
public struct FieldKey: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The meaning's name.
    public let rawValue: String

    /// Wraps a name.
    /// - Parameter rawValue: The name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a name written as a literal (a placeholder or a content type).
    /// - Parameter value: The name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The name.
    public var description: String { rawValue }

    /// An e-mail address field.
    public static let email = FieldKey(rawValue: "email")
    /// A password field.
    public static let password = FieldKey(rawValue: "password")
    /// A phone number field.
    public static let phoneNumber = FieldKey(rawValue: "phoneNumber")
    /// A number field.
    public static let number = FieldKey(rawValue: "number")
    /// A URL field.
    public static let url = FieldKey(rawValue: "url")
    /// A plain text field.
    public static let plain = FieldKey(rawValue: "plain")
    /// A mail's To line (addresses separated by commas).
    public static let to = FieldKey(rawValue: "to")
    /// A mail's Cc line.
    public static let cc = FieldKey(rawValue: "cc")
    /// A mail's Bcc line.
    public static let bcc = FieldKey(rawValue: "bcc")
    /// A mail's sending address (only when the host sent `from`).
    public static let from = FieldKey(rawValue: "from")
    /// A mail's or message's subject.
    public static let subject = FieldKey(rawValue: "subject")
    /// A mail's or message's body.
    public static let body = FieldKey(rawValue: "body")
    /// A message's recipients (numbers or addresses separated by commas).
    public static let recipients = FieldKey(rawValue: "recipients")
    /// A mail's kept attachments (names separated by commas).
    public static let attachments = FieldKey(rawValue: "attachments")
    /// The callback address a native web authentication pastes back.
    public static let callbackURL = FieldKey(rawValue: "callbackURL")
}

/// Which choice of a form: by its title, its role, or the preferred one; never by position.
public enum ChoiceKey: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The choice with this title ("Sign In", "Send", "Save draft").
    case titled(String)
    /// The first choice with this style (`.cancel`, `.destructive`).
    case role(ActionStyle)
    /// The preferred choice (Enter's).
    case preferred

    /// A title written as a literal.
    /// - Parameter value: The title.
    public init(stringLiteral value: String) { self = .titled(value) }

    /// The key in words, for error messages.
    public var description: String {
        switch self {
        case .titled(let title): "\u{201C}\(title)\u{201D}"
        case .role(let style): "the \(style.rawValue) choice"
        case .preferred: "the preferred choice"
        }
    }
}

/// Why a form refused to fill a field or build an answer.
public struct FormError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of refusal.
    public enum Code: Sendable, Equatable {
        /// No field answers to the key.
        case noSuchField
        /// No choice answers to the key.
        case noSuchChoice
        /// The choice is disabled (by the host's last `present`/`update`).
        case choiceDisabled
        /// A field's text does not pass the form's check (a mail with no recipient).
        case invalid(FieldKey)
        /// This choice is not answered through the form (a picker's files go through `pick`).
        case notHere
    }

    /// The kind of refusal.
    public var code: Code
    /// What is wrong, for a person.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind.
    ///   - message: The words.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The words.
    public var description: String { message }
}
