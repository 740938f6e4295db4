import RemoteModalProtocol

/// A text field of a remote alert.
public struct DialogTextField: Sendable, Equatable {
    /// The wire description.
    public let spec: TextFieldSpec

    private init(_ kind: TextFieldKind, placeholder: String?, text: String?) {
        spec = TextFieldSpec(kind: kind, placeholder: placeholder, text: text)
    }

    /// A text field configured freely, as RxModal's `DialogTextField(configuration:)`:
    /// the closure sets the placeholder, initial text, keyboard, autocapitalization,
    /// content type (autofill) and secure entry, all carried to the client.
    /// - Parameters:
    ///   - kind: The kind the configuration starts from (it picks the client's defaults).
    ///   - configuration: Changes the description.
    public init(kind: TextFieldKind = .plain, configuration: (inout TextFieldSpec) -> Void) {
        var spec = TextFieldSpec(kind: kind)
        configuration(&spec)
        self.spec = spec
    }

    /// A plain text field, configured freely.
    /// - Parameter configuration: Changes the description.
    /// - Returns: The field.
    public static func plain(configuration: (inout TextFieldSpec) -> Void) -> DialogTextField {
        DialogTextField(kind: .plain, configuration: configuration)
    }

    /// An e-mail field (e-mail keyboard, no capitals, `email` autofill), configured freely.
    /// - Parameter configuration: Changes the description.
    /// - Returns: The field.
    public static func email(configuration: (inout TextFieldSpec) -> Void) -> DialogTextField {
        DialogTextField(kind: .email) { spec in
            spec.keyboard = .email
            spec.autocapitalization = TextFieldAutocapitalization.none
            spec.contentType = "email"
            configuration(&spec)
        }
    }

    /// A password field (masked, no capitals, `current-password` autofill), configured
    /// freely.
    /// - Parameter configuration: Changes the description.
    /// - Returns: The field.
    public static func password(configuration: (inout TextFieldSpec) -> Void) -> DialogTextField {
        DialogTextField(kind: .password) { spec in
            spec.isSecureTextEntry = true
            spec.autocapitalization = TextFieldAutocapitalization.none
            spec.contentType = "current-password"
            configuration(&spec)
        }
    }

    /// A phone number field (phone pad, `tel` autofill), configured freely.
    /// - Parameter configuration: Changes the description.
    /// - Returns: The field.
    public static func phoneNumber(configuration: (inout TextFieldSpec) -> Void) -> DialogTextField {
        DialogTextField(kind: .phoneNumber) { spec in
            spec.keyboard = .phone
            spec.autocapitalization = TextFieldAutocapitalization.none
            spec.contentType = "tel"
            configuration(&spec)
        }
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
