import RemoteModalProtocol

/// One modal as an app fills it: fields keyed by meaning, choices by title or role, the
/// host's latest action states, a check per kind, and the answer built from it.
///
/// `ModalForm` is a value: the machine emits a fresh one with each `present`, `represent`
/// and `update`; an app edits its copy and hands the reply to the client.
public struct ModalForm: Sendable, Equatable {
    /// One editable field.
    public struct Field: Sendable, Equatable {
        /// What it means; `FieldKey` matching also looks at `kind`, `contentType` and `label`.
        public var key: FieldKey
        /// What a person reads beside it (the placeholder, "To", ...).
        public var label: String
        /// The text so far.
        public var text: String
        /// Whether to mask it.
        public var secure: Bool
        /// Whether it holds several lines (a body).
        public var multiline: Bool
        /// An alert field's `contentType`, if any.
        public var contentType: String?
    }

    /// One choice (an alert's action, a composer's Send, ...).
    public struct Choice: Sendable, Equatable {
        /// The title.
        public var title: String
        /// The style.
        public var style: ActionStyle
        /// Whether it can be chosen now.
        public var enabled: Bool
        /// Whether it is the default.
        public var preferred: Bool
        /// The host's words for the rule that enables it (`explanation`), if it said one.
        public var explanation: String? = nil
    }

    /// The modal's id.
    public let id: String
    /// What the host sent.
    public let modal: ModalDescription
    /// The upload window and held bytes of a picker, as the latest `present` said.
    public let uploads: UploadOffer?
    /// The fields, in the order they are shown.
    public internal(set) var fields: [Field]
    /// The choices, in the order they are shown.
    public internal(set) var choices: [Choice]
    /// Whether typed values went to the host and nothing has been heard from it since, with
    /// a host that offers the heartbeat (a ping follows them): what the choices' states say
    /// about those values is not known yet. A client says "checking", never that they are wrong.
    public internal(set) var checking = false

    /// Builds the form of a presented modal.
    /// - Parameters:
    ///   - id: The modal's id.
    ///   - modal: What the host sent.
    ///   - uploads: A picker's upload offer.
    public init(id: String, modal: ModalDescription, uploads: UploadOffer? = nil) {
        self.id = id
        self.modal = modal
        self.uploads = uploads
        (fields, choices) = Self.layout(modal)
    }

    /// The title (an alert's or sheet's; a fixed one for other kinds).
    public var title: String {
        switch modal {
        case .alert(let title, _, _, _), .actionSheet(let title, _, _, _): title ?? ""
        case .mailComposer: "New mail"
        case .messageComposer: "New message"
        case .webAuthentication: "Sign in"
        case .photoPicker: "Choose photos"
        case .mediaPicker: "Choose media"
        case .custom(let name, _): name
        }
    }

    /// The kind's wire name (`alert`, `actionSheet`, ...).
    public var kind: String { modal.kind }

    /// The field answering to `key`: by key, kind, content type, then label (placeholder).
    /// - Parameter key: The meaning.
    /// - Returns: The field's index, or `nil`.
    public func fieldIndex(_ key: FieldKey) -> Int? {
        fields.firstIndex { $0.key == key } ?? fields.firstIndex { $0.contentType == key.rawValue }
            ?? fields.firstIndex { $0.label == key.rawValue }
    }

    /// The text of the field answering to `key`.
    /// - Parameter key: The meaning.
    /// - Returns: The text, or `nil` without such a field.
    public func text(_ key: FieldKey) -> String? { fieldIndex(key).map { fields[$0].text } }

    /// Sets a field's text.
    /// - Parameters:
    ///   - key: The field's meaning.
    ///   - text: The text.
    /// - Throws: `FormError.noSuchField` naming what the form has.
    public mutating func fill(_ key: FieldKey, _ text: String) throws(FormError) {
        guard let index = fieldIndex(key) else {
            let known = fields.map(\.key.rawValue).joined(separator: ", ")
            throw FormError(.noSuchField, "\u{201C}\(title)\u{201D} has no field \(key) (it has: \(known))")
        }
        fields[index].text = text
    }

    /// Sets the text of the field at a position, for an app that shows the fields in order
    /// and edits each where it is (two alert fields may share a meaning: two `plain` ones).
    /// - Parameters:
    ///   - index: The field's position in `fields`.
    ///   - text: The text.
    /// - Throws: `FormError.noSuchField` when there is no field there.
    public mutating func fill(fieldAt index: Int, _ text: String) throws(FormError) {
        guard fields.indices.contains(index) else {
            throw FormError(.noSuchField, "\u{201C}\(title)\u{201D} has \(fields.count) fields, not \(index + 1)")
        }
        fields[index].text = text
    }

    /// An alert's text fields in order, as `input` and `result` send them.
    public var textFields: [String] {
        guard case .alert = modal else { return [] }
        return fields.map(\.text)
    }

    /// Takes the host's action states (`update`, a re-sent `present`); extra entries are ignored.
    /// - Parameter states: The enabled states, in action order.
    public mutating func setActionStates(_ states: [Bool]) {
        guard modal.actions != nil else { return }
        for (index, enabled) in states.enumerated() where index < choices.count { choices[index].enabled = enabled }
    }

    /// The choice answering to `key`.
    /// - Parameter key: The key.
    /// - Returns: Its index, or `nil`.
    public func choiceIndex(_ key: ChoiceKey) -> Int? {
        switch key {
        case .titled(let title): choices.firstIndex { $0.title == title }
        case .role(let style): choices.firstIndex { $0.style == style }
        case .preferred: choices.firstIndex { $0.preferred }
        }
    }

    /// Whether `key` names a choice that can be chosen now.
    /// - Parameter key: The key.
    /// - Returns: `true` when it exists and is enabled.
    public func isEnabled(_ key: ChoiceKey) -> Bool { choiceIndex(key).map { choices[$0].enabled } ?? false }

    /// The answer for choosing `key` with the fields as filled.
    /// - Parameter key: The choice.
    /// - Returns: The reply to hand to the client.
    /// - Throws: `FormError` when there is no such choice, it is disabled, a field fails the
    ///   kind's check, or the choice is not answered here (a picker's Send: use `pick`).
    public func reply(choosing key: ChoiceKey) throws(FormError) -> FormReply {
        guard let index = choiceIndex(key) else {
            let known = choices.map { "\u{201C}\($0.title)\u{201D}" }.joined(separator: ", ")
            throw FormError(.noSuchChoice, "\u{201C}\(title)\u{201D} has no choice \(key) (it has: \(known))")
        }
        let choice = choices[index]
        guard choice.enabled else {
            throw FormError(.choiceDisabled, "\u{201C}\(choice.title)\u{201D} is disabled in \u{201C}\(title)\u{201D}")
        }
        let cancel = choice.style == .cancel
        switch modal {
        case .alert:
            return .answer(.action(index: index, textFields: textFields))
        case .actionSheet:
            return .answer(.action(index: index, textFields: []))
        case .mailComposer(_, _, _, _, _, _, let options):
            let status: MailStatus = cancel ? .cancelled : choice.title == "Send" ? .sent : .saved
            if status == .sent { try checkMail() }
            var kept: [String]?
            if !options.attachments.isEmpty {
                let named = Self.list(text(.attachments) ?? "")
                kept = options.attachments.map(\.name).filter { named.contains($0) }
            }
            return .answer(
                .mail(
                    status: status, to: Self.list(text(.to) ?? ""), cc: Self.list(text(.cc) ?? ""),
                    bcc: Self.list(text(.bcc) ?? ""), subject: text(.subject) ?? "", body: text(.body) ?? "",
                    from: options.from == nil ? nil : text(.from), attachments: kept))
        case .messageComposer(_, let subject, _):
            if !cancel { try checkMessage() }
            return .answer(
                .message(
                    status: cancel ? .cancelled : .sent, recipients: Self.list(text(.recipients) ?? ""),
                    body: text(.body) ?? "", subject: subject == nil ? nil : text(.subject)))
        case .webAuthentication:
            if cancel { return .failure(.cancelled, nil) }
            let url = text(.callbackURL) ?? ""
            guard !url.isEmpty else { throw FormError(.invalid(.callbackURL), "Paste the callback address first.") }
            return .answer(.callbackURL(url))
        case .photoPicker, .mediaPicker:
            if cancel { return .failure(.cancelled, nil) }
            throw FormError(.notHere, "A picker's files are sent with pick(files), which answers when they are up.")
        case .custom:
            return .failure(.cancelled, nil)
        }
    }

    /// What the kind's cancel is: the cancel-style action of an alert or sheet, a composer's
    /// `cancelled` status, `failure` `cancelled` for the others; `nil` when the alert has no
    /// enabled cancel action (a group approval stays until answered).
    public var cancelReply: FormReply? {
        switch modal {
        case .alert, .actionSheet, .mailComposer, .messageComposer:
            guard isEnabled(.role(.cancel)) else { return nil }
            return try? reply(choosing: .role(.cancel))
        default:
            return .failure(.cancelled, nil)
        }
    }

    private func checkMail() throws(FormError) {
        var any = false
        for key in [FieldKey.to, .cc, .bcc] {
            let addresses = Self.list(text(key) ?? "")
            if let wrong = addresses.first(where: { !Self.looksLikeMailAddress($0) }) {
                throw FormError(.invalid(key), "Not a mail address: \(wrong)")
            }
            any = any || !addresses.isEmpty
        }
        guard any else { throw FormError(.invalid(.to), "Add a recipient first.") }
    }

    private func checkMessage() throws(FormError) {
        let recipients = Self.list(text(.recipients) ?? "")
        guard !recipients.isEmpty else { throw FormError(.invalid(.recipients), "Add a recipient first.") }
        if let wrong = recipients.first(where: { !$0.contains(where: \.isNumber) && !Self.looksLikeMailAddress($0) }) {
            throw FormError(.invalid(.recipients), "Not a phone number or address: \(wrong)")
        }
    }

    /// A mail address as a person types one: something, one `@`, a domain, no spaces.
    /// - Parameter text: One entry.
    /// - Returns: Whether it looks like an address.
    public static func looksLikeMailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !text.contains { " \t,;<>\"".contains($0) }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
    }

    private static func layout(_ modal: ModalDescription) -> ([Field], [Choice]) {
        func field(_ key: FieldKey, _ label: String, _ text: String, multiline: Bool = false) -> Field {
            Field(key: key, label: label, text: text, secure: false, multiline: multiline, contentType: nil)
        }
        func fixed(_ titles: [(String, ActionStyle)], preferred: Int? = nil) -> [Choice] {
            titles.enumerated().map {
                Choice(title: $0.element.0, style: $0.element.1, enabled: true, preferred: $0.offset == preferred)
            }
        }
        let actions = (modal.actions ?? []).map {
            Choice(
                title: $0.title, style: $0.style, enabled: $0.enabled, preferred: $0.preferred,
                explanation: $0.explanation)
        }
        switch modal {
        case .alert(_, _, let textFields, _):
            let fields = textFields.map {
                Field(
                    key: FieldKey(rawValue: $0.kind.rawValue), label: $0.placeholder ?? $0.kind.rawValue,
                    text: $0.text ?? "", secure: $0.isSecureTextEntry ?? ($0.kind == .password), multiline: false,
                    contentType: $0.contentType)
            }
            return (fields, actions)
        case .actionSheet:
            return ([], actions)
        case .mailComposer(let to, let cc, let bcc, let subject, let body, _, let options):
            var fields = [
                field(.to, "To", to.joined(separator: ", ")), field(.cc, "Cc", cc.joined(separator: ", ")),
                field(.bcc, "Bcc", bcc.joined(separator: ", ")),
            ]
            if let from = options.from { fields.append(field(.from, "From", from)) }
            fields.append(field(.subject, "Subject", subject))
            fields.append(field(.body, "Body", body, multiline: true))
            if !options.attachments.isEmpty {
                fields.append(
                    field(.attachments, "Attachments", options.attachments.map(\.name).joined(separator: ", ")))
            }
            return (fields, fixed([("Cancel", .cancel), ("Save draft", .default), ("Send", .default)], preferred: 2))
        case .messageComposer(let recipients, let subject, let body):
            var fields = [field(.recipients, "To", recipients.joined(separator: ", "))]
            if let subject { fields.append(field(.subject, "Subject", subject)) }
            fields.append(field(.body, "Message", body, multiline: true))
            return (fields, fixed([("Cancel", .cancel), ("Send", .default)], preferred: 1))
        case .webAuthentication(_, let callbackURL, _, _):
            if callbackURL != nil { return ([], fixed([("Cancel", .cancel)])) }
            return (
                [field(.callbackURL, "Callback URL", "")],
                fixed([("Cancel", .cancel), ("Done", .default)], preferred: 1)
            )
        case .photoPicker, .mediaPicker:
            return ([], fixed([("Cancel", .cancel), ("Send", .default)], preferred: 1))
        case .custom:
            return ([], fixed([("Cancel", .cancel)]))
        }
    }
}

extension String {
    var trimmed: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

/// Text from the host made safe to print: control characters (ESC, BEL, C1, ...) become
/// U+FFFD, except line breaks and tabs when `multiline`. A host's title must not drive a terminal.
public enum PrintableText {
    /// Replaces control characters.
    /// - Parameters:
    ///   - text: The host's text.
    ///   - multiline: Whether `\n` and `\t` stay.
    /// - Returns: Text without control characters.
    public static func clean(_ text: String, multiline: Bool = false) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    let control = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    if multiline, scalar == "\n" || scalar == "\t" { return scalar }
                    return control ? "\u{FFFD}" : scalar
                }))
    }
}
