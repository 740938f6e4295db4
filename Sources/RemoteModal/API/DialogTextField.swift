import ModalProtocol

/// A text field of a remote alert.
public struct DialogTextField: Sendable, Equatable {
    /// The wire description.
    public let spec: TextFieldSpec

    private init(_ kind: TextFieldKind, placeholder: String?, text: String?) {
        spec = TextFieldSpec(kind: kind, placeholder: placeholder, text: text)
    }

    /// A plain text field.
    /// - Parameters:
    ///   - placeholder: The placeholder.
    ///   - text: The initial text.
    /// - Returns: The field.
    public static func plain(placeholder: String? = nil, text: String? = nil) -> DialogTextField {
        DialogTextField(.plain, placeholder: placeholder, text: text)
    }

    /// An e-mail field.
    /// - Parameters:
    ///   - placeholder: The placeholder.
    ///   - text: The initial text.
    /// - Returns: The field.
    public static func email(placeholder: String? = nil, text: String? = nil) -> DialogTextField {
        DialogTextField(.email, placeholder: placeholder, text: text)
    }

    /// A masked password field.
    /// - Parameters:
    ///   - placeholder: The placeholder.
    ///   - text: The initial text.
    /// - Returns: The field.
    public static func password(placeholder: String? = nil, text: String? = nil) -> DialogTextField {
        DialogTextField(.password, placeholder: placeholder, text: text)
    }

    /// A phone number field.
    /// - Parameters:
    ///   - placeholder: The placeholder.
    ///   - text: The initial text.
    /// - Returns: The field.
    public static func phoneNumber(placeholder: String? = nil, text: String? = nil) -> DialogTextField {
        DialogTextField(.phoneNumber, placeholder: placeholder, text: text)
    }

    /// A number field.
    /// - Parameters:
    ///   - placeholder: The placeholder.
    ///   - text: The initial text.
    /// - Returns: The field.
    public static func number(placeholder: String? = nil, text: String? = nil) -> DialogTextField {
        DialogTextField(.number, placeholder: placeholder, text: text)
    }

    /// A URL field.
    /// - Parameters:
    ///   - placeholder: The placeholder.
    ///   - text: The initial text.
    /// - Returns: The field.
    public static func url(placeholder: String? = nil, text: String? = nil) -> DialogTextField {
        DialogTextField(.url, placeholder: placeholder, text: text)
    }
}
