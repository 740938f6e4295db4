extension ModalDescription {
    /// Writes the modal object, keys in the order docs/protocol.md shows them.
    /// - Parameter writer: The writer.
    public func write(to writer: inout JSONWriter) {
        writer.raw("{\"kind\":")
        writer.string(kind)
        switch self {
        case .alert(let title, let message, let textFields, let actions):
            writer.raw(",\"title\":")
            writer.optionalString(title)
            writer.raw(",\"message\":")
            writer.optionalString(message)
            writer.raw(",\"textFields\":[")
            for (offset, field) in textFields.enumerated() {
                if offset > 0 { writer.raw(",") }
                writer.raw("{\"kind\":")
                writer.string(field.kind.rawValue)
                writer.raw(",\"placeholder\":")
                writer.optionalString(field.placeholder)
                writer.raw(",\"text\":")
                writer.optionalString(field.text)
                // Optional configuration, omitted when unset so older clients see the same JSON.
                if let keyboard = field.keyboard {
                    writer.raw(",\"keyboard\":")
                    writer.string(keyboard.rawValue)
                }
                if let autocapitalization = field.autocapitalization {
                    writer.raw(",\"autocapitalize\":")
                    writer.string(autocapitalization.rawValue)
                }
                if let contentType = field.contentType {
                    writer.raw(",\"contentType\":")
                    writer.string(contentType)
                }
                if let secure = field.isSecureTextEntry {
                    writer.raw(",\"secure\":")
                    writer.bool(secure)
                }
                writer.raw("}")
            }
            writer.raw("],\"actions\":")
            Self.write(actions, to: &writer)
        case .actionSheet(let title, let message, let source, let actions):
            writer.raw(",\"title\":")
            writer.optionalString(title)
            writer.raw(",\"message\":")
            writer.optionalString(message)
            writer.raw(",\"source\":")
            writer.optionalString(source)
            writer.raw(",\"actions\":")
            Self.write(actions, to: &writer)
        case .webAuthentication(let url, let callbackURL, let scheme, let options):
            writer.raw(",\"url\":")
            writer.string(url)
            writer.raw(",\"callbackURL\":")
            writer.optionalString(callbackURL)
            writer.raw(",\"callbackURLScheme\":")
            writer.optionalString(scheme)
            if let ephemeral = options.prefersEphemeralWebBrowserSession {
                writer.raw(",\"prefersEphemeralWebBrowserSession\":")
                writer.bool(ephemeral)
            }
            if !options.additionalHeaderFields.isEmpty {
                writer.raw(",\"additionalHeaderFields\":")
                writer.value(
                    .object(options.additionalHeaderFields.sorted { $0.key < $1.key }.map { ($0, .string($1)) }))
            }
            if let shortURL = options.shortURL {
                writer.raw(",\"shortURL\":")
                writer.string(shortURL)
            }
        case .mailComposer(let to, let cc, let bcc, let subject, let body, let isHTML, let options):
            writer.raw(",\"to\":")
            writer.strings(to)
            writer.raw(",\"cc\":")
            writer.strings(cc)
            writer.raw(",\"bcc\":")
            writer.strings(bcc)
            writer.raw(",\"subject\":")
            writer.string(subject)
            writer.raw(",\"body\":")
            writer.string(body)
            writer.raw(",\"isHTML\":")
            writer.bool(isHTML)
            if let from = options.from {
                writer.raw(",\"from\":")
                writer.string(from)
            }
            if !options.attachments.isEmpty {
                writer.raw(",\"attachments\":[")
                for (offset, attachment) in options.attachments.enumerated() {
                    if offset > 0 { writer.raw(",") }
                    writer.raw("{\"name\":")
                    writer.string(attachment.name)
                    writer.raw(",\"mimeType\":")
                    writer.string(attachment.mimeType)
                    writer.raw(",\"data\":")
                    writer.string(attachment.base64)
                    writer.raw("}")
                }
                writer.raw("]")
            }
        case .messageComposer(let recipients, let subject, let body):
            writer.raw(",\"recipients\":")
            writer.strings(recipients)
            writer.raw(",\"subject\":")
            writer.optionalString(subject)
            writer.raw(",\"body\":")
            writer.string(body)
        case .photoPicker(let limit, let filter, let maxBytes, let prompt):
            writer.raw(",\"selectionLimit\":")
            writer.int(limit)
            writer.raw(",\"filter\":")
            writer.strings(filter)
            writer.raw(",\"maxBytes\":")
            writer.int(maxBytes)
            Self.write(prompt: prompt, to: &writer)
        case .mediaPicker(let types, let allowsMultiple, let maxBytes, let prompt):
            writer.raw(",\"types\":")
            writer.strings(types)
            writer.raw(",\"allowsMultiple\":")
            writer.bool(allowsMultiple)
            writer.raw(",\"maxBytes\":")
            writer.int(maxBytes)
            Self.write(prompt: prompt, to: &writer)
        case .custom(let name, let payload):
            writer.raw(",\"name\":")
            writer.string(name)
            writer.raw(",\"payload\":")
            writer.value(payload)
        }
        writer.raw("}")
    }

    private static func write(prompt: String?, to writer: inout JSONWriter) {
        guard let prompt else { return }
        writer.raw(",\"prompt\":")
        writer.string(prompt)
    }

    private static func write(_ actions: [ActionSpec], to writer: inout JSONWriter) {
        writer.raw("[")
        for (offset, action) in actions.enumerated() {
            if offset > 0 { writer.raw(",") }
            writer.raw("{\"title\":")
            writer.string(action.title)
            writer.raw(",\"style\":")
            writer.string(action.style.rawValue)
            writer.raw(",\"enabled\":")
            writer.bool(action.enabled)
            writer.raw(",\"preferred\":")
            writer.bool(action.preferred)
            if let explanation = action.explanation {
                writer.raw(",\"explanation\":")
                writer.string(explanation)
            }
            writer.raw("}")
        }
        writer.raw("]")
    }

    /// The modal kinds of protocol version 1 (`modal.kind`).
    public static let kinds: Set<String> = [
        "alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker", "mediaPicker",
        "custom",
    ]

    /// Reads a modal object (what a client does with `present`).
    /// - Parameter value: The `modal` object.
    /// - Returns: The description.
    /// - Throws: ``ProtocolError`` naming the field.
    public static func decode(_ value: JSONValue) throws(ProtocolError) -> ModalDescription {
        guard case .object = value else { throw .wrongType("modal", expected: "an object", in: "present") }
        let fields = Fields(value, type: "present", path: "modal")
        switch try fields.string("kind") {
        case "alert":
            let textFields = try fields.array("textFields", maxCount: 16).enumerated().map {
                (index, element) throws(ProtocolError) -> TextFieldSpec in
                let field = Fields(element, type: "present", path: "modal.textFields[\(index)]")
                // Open: a kind from a newer host is shown as a plain field (masked if `secure`).
                let kind = TextFieldKind(rawValue: try field.string("kind")) ?? .plain
                return TextFieldSpec(
                    kind: kind, placeholder: try field.optionalString("placeholder"),
                    text: try field.optionalString("text"),
                    keyboard: try field.optionalString("keyboard").map(TextFieldKeyboard.init(rawValue:)),
                    autocapitalization: try field.optionalString("autocapitalize").map(
                        TextFieldAutocapitalization.init(rawValue:)),
                    contentType: try field.optionalString("contentType"),
                    isSecureTextEntry: try field.optionalBool("secure"))
            }
            return .alert(
                title: try fields.optionalString("title"), message: try fields.optionalString("message"),
                textFields: textFields, actions: try decodeActions(fields))
        case "actionSheet":
            return .actionSheet(
                title: try fields.optionalString("title"), message: try fields.optionalString("message"),
                source: try fields.optionalString("source"), actions: try decodeActions(fields))
        case "webAuthentication":
            return .webAuthentication(
                url: try fields.string("url"), callbackURL: try fields.optionalString("callbackURL"),
                callbackURLScheme: try fields.optionalString("callbackURLScheme"),
                options: try decodeWebAuthenticationOptions(fields))
        case "mailComposer":
            return .mailComposer(
                to: try fields.optionalStrings("to") ?? [], cc: try fields.optionalStrings("cc") ?? [],
                bcc: try fields.optionalStrings("bcc") ?? [], subject: try fields.optionalString("subject") ?? "",
                body: try fields.optionalString("body") ?? "", isHTML: try fields.optionalBool("isHTML") ?? false,
                options: try decodeMailOptions(fields))
        case "messageComposer":
            return .messageComposer(
                recipients: try fields.optionalStrings("recipients") ?? [],
                subject: try fields.optionalString("subject"),
                body: try fields.optionalString("body") ?? "")
        case "photoPicker":
            return .photoPicker(
                selectionLimit: try fields.int("selectionLimit"), filter: try fields.optionalStrings("filter") ?? [],
                maxBytes: try fields.int("maxBytes"), prompt: try fields.optionalString("prompt"))
        case "mediaPicker":
            return .mediaPicker(
                types: try fields.optionalStrings("types") ?? [],
                allowsMultiple: try fields.optionalBool("allowsMultiple") ?? false,
                maxBytes: try fields.int("maxBytes"),
                prompt: try fields.optionalString("prompt"))
        case "custom":
            return .custom(name: try fields.string("name"), payload: try fields.value("payload"))
        case let other:
            throw ProtocolError(.badMessage, "unknown modal kind '\(other)'", ref: "present")
        }
    }

    private static func decodeMailOptions(_ fields: Fields) throws(ProtocolError) -> MailOptions {
        let attachments = try (fields.optionalArray("attachments", maxCount: 100) ?? []).enumerated().map {
            (index, element) throws(ProtocolError) -> MailAttachment in
            let path = "modal.attachments[\(index)]"
            let item = Fields(element, type: "present", path: path)
            let attachment = MailAttachment(
                name: try item.string("name"), mimeType: try item.string("mimeType"),
                base64: try item.string("data", maxLength: JSONParser().maxStringBytes))
            guard attachment.isWellFormed else {
                throw ProtocolError(.badMessage, "field '\(path).data' is not base64", ref: "present")
            }
            return attachment
        }
        guard attachments.reduce(0, { $0 + $1.size }) <= MailAttachment.maxTotalBytes else {
            throw ProtocolError(
                .badMessage, "the attachments add up to more than \(MailAttachment.maxTotalBytes) bytes",
                ref: "present")
        }
        return MailOptions(from: try fields.optionalString("from"), attachments: attachments)
    }

    private static func decodeWebAuthenticationOptions(_ fields: Fields) throws(ProtocolError)
        -> WebAuthenticationOptions
    {
        var headers: [String: String] = [:]
        if let object = try fields.optionalObject("additionalHeaderFields"), case .object(let pairs) = object.object {
            guard pairs.count <= 64 else {
                throw ProtocolError(
                    .badMessage, "field 'modal.additionalHeaderFields' has too many entries", ref: "present")
            }
            for (key, _) in pairs { headers[key] = try object.string(key) }
        }
        return WebAuthenticationOptions(
            prefersEphemeralWebBrowserSession: try fields.optionalBool("prefersEphemeralWebBrowserSession"),
            additionalHeaderFields: headers, shortURL: try fields.optionalString("shortURL"))
    }

    private static func decodeActions(_ fields: Fields) throws(ProtocolError) -> [ActionSpec] {
        let actions = try fields.array("actions", maxCount: 32).enumerated().map {
            (index, element) throws(ProtocolError) -> ActionSpec in
            let action = Fields(element, type: "present", path: "modal.actions[\(index)]")
            // Open: a style from a newer host is shown as `default`.
            let style = ActionStyle(rawValue: try action.string("style")) ?? .default
            return ActionSpec(
                title: try action.string("title"), style: style, enabled: try action.optionalBool("enabled") ?? true,
                preferred: try action.optionalBool("preferred") ?? false,
                explanation: try action.optionalString("explanation"))
        }
        guard !actions.isEmpty else {
            throw ProtocolError(.badMessage, "field 'modal.actions' is empty", ref: "present")
        }
        return actions
    }
}
