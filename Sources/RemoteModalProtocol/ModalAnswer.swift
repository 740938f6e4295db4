/// One file a picker delivered, as the `result` describes it.
public struct PickedItem: Sendable, Equatable {
    /// The file name.
    public var name: String
    /// The MIME type.
    public var mimeType: String
    /// The size in bytes.
    public var size: Int
    /// The SHA-256 of the bytes, lower-case hex.
    public var sha256: String

    /// Creates an item.
    /// - Parameters:
    ///   - name: The file name.
    ///   - mimeType: The MIME type.
    ///   - size: The size in bytes.
    ///   - sha256: The SHA-256, lower-case hex.
    public init(name: String, mimeType: String, size: Int, sha256: String) {
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.sha256 = sha256
    }
}

/// A client's accepted answer to a modal, checked against the modal's kind.
public enum ModalAnswer: Sendable, Equatable {
    /// An alert or action sheet action, with the alert's text field values.
    case action(index: Int, textFields: [String])
    /// A web authentication callback URL.
    case callbackURL(String)
    /// A mail composer outcome and the mail as edited. `from` and `attachments` (the
    /// names of the host's attachments the mail kept) are `nil` when the client did not
    /// report them (older clients): the mail then kept what the host sent.
    case mail(
        status: MailStatus, to: [String], cc: [String], bcc: [String], subject: String, body: String,
        from: String? = nil, attachments: [String]? = nil)
    /// A message composer outcome and the message as edited; `subject` is `nil` when the
    /// client did not report one.
    case message(status: MessageStatus, recipients: [String], body: String, subject: String? = nil)
    /// The files a picker delivered (empty: the person picked nothing).
    case picked([PickedItem])
    /// A custom modal's result, decoded later by the custom modal's own type.
    case custom(JSONValue)
}

extension ModalDescription {
    /// Checks a `result` value against this modal.
    /// - Parameters:
    ///   - value: The `value` field of the `result`.
    ///   - enabled: The actions' last known enabled states (alerts and sheets).
    /// - Returns: The typed answer.
    /// - Throws: ``ProtocolError`` `bad_message` naming what does not fit.
    public func validateResult(_ value: JSONValue, enabled: [Bool]? = nil) throws(ProtocolError) -> ModalAnswer {
        if case .custom = self { return .custom(value) }
        guard case .object = value else { throw .wrongType("value", expected: "an object", in: "result") }
        let fields = Fields(value, type: "result", path: "value")
        switch self {
        case .alert(_, _, let textFields, let actions):
            let index = try fields.int("action", in: 0...max(0, actions.count - 1))
            let texts =
                textFields.isEmpty ? (try fields.optionalStrings("textFields") ?? []) : try fields.strings("textFields")
            guard texts.count == textFields.count else {
                throw ProtocolError(
                    .badMessage, "field 'value.textFields' must have \(textFields.count) entries", ref: "result")
            }
            try checkEnabled(index, enabled ?? actions.map(\.enabled))
            return .action(index: index, textFields: texts)
        case .actionSheet(_, _, _, let actions):
            let index = try fields.int("action", in: 0...max(0, actions.count - 1))
            try checkEnabled(index, enabled ?? actions.map(\.enabled))
            return .action(index: index, textFields: [])
        case .webAuthentication(_, _, let scheme, _):
            let url = try fields.string("url")
            if let scheme, !url.lowercased().hasPrefix(scheme.lowercased() + ":") {
                throw ProtocolError(.badMessage, "field 'value.url' must use the scheme '\(scheme)'", ref: "result")
            }
            return .callbackURL(url)
        case .mailComposer(_, _, _, _, _, _, let options):
            let status = MailStatus(rawValue: try fields.oneOf("status", MailStatus.allCases.map(\.rawValue)))!
            let mail = try fields.optionalObject("mail")
            let kept = try mail?.optionalStrings("attachments")
            if let kept {
                let offered = Set(options.attachments.map(\.name))
                for (index, name) in kept.enumerated() where !offered.contains(name) {
                    throw ProtocolError(
                        .badMessage, "field 'value.mail.attachments[\(index)]' names no attachment of this mail",
                        ref: "result")
                }
                guard Set(kept).count == kept.count else {
                    throw ProtocolError(.badMessage, "field 'value.mail.attachments' repeats a name", ref: "result")
                }
            }
            return .mail(
                status: status, to: try mail?.optionalStrings("to") ?? [], cc: try mail?.optionalStrings("cc") ?? [],
                bcc: try mail?.optionalStrings("bcc") ?? [], subject: try mail?.optionalString("subject") ?? "",
                body: try mail?.optionalString("body") ?? "", from: try mail?.optionalString("from"),
                attachments: kept)
        case .messageComposer:
            let status = MessageStatus(rawValue: try fields.oneOf("status", MessageStatus.allCases.map(\.rawValue)))!
            let message = try fields.optionalObject("message")
            return .message(
                status: status, recipients: try message?.optionalStrings("recipients") ?? [],
                body: try message?.optionalString("body") ?? "", subject: try message?.optionalString("subject"))
        case .photoPicker(let limit, _, let maxBytes, _):
            // 0: no limit but the protocol's (PHPickerConfiguration's meaning).
            return .picked(try pickedItems(fields, limit: limit == 0 ? 1_000 : limit, maxBytes: maxBytes))
        case .mediaPicker(_, let allowsMultiple, let maxBytes, _):
            return .picked(try pickedItems(fields, limit: allowsMultiple ? 1_000 : 1, maxBytes: maxBytes))
        case .custom:
            return .custom(value)
        }
    }

    private func checkEnabled(_ index: Int, _ enabled: [Bool]) throws(ProtocolError) {
        guard index < enabled.count, enabled[index] else {
            throw ProtocolError(.badMessage, "action \(index) is disabled", ref: "result")
        }
    }

    private func pickedItems(_ fields: Fields, limit: Int, maxBytes: Int) throws(ProtocolError) -> [PickedItem] {
        let items = try fields.array("items", maxCount: 1_000)
        guard items.count <= limit else {
            throw ProtocolError(.badMessage, "field 'value.items' has more than \(limit) entries", ref: "result")
        }
        var total = 0
        return try items.enumerated().map { (index, element) throws(ProtocolError) -> PickedItem in
            let item = Fields(element, type: "result", path: "value.items[\(index)]")
            let size = try item.int("size", in: 0...maxBytes)
            total += size
            guard total <= maxBytes else {
                throw ProtocolError(.badMessage, "the items add up to more than \(maxBytes) bytes", ref: "result")
            }
            let hash = try item.string("sha256").lowercased()
            guard hash.count == 64, hash.allSatisfy(\.isHexDigit) else {
                throw ProtocolError(
                    .badMessage, "field 'value.items[\(index)].sha256' must be 64 hex digits", ref: "result")
            }
            return PickedItem(
                name: try item.string("name"), mimeType: try item.string("mimeType"), size: size, sha256: hash)
        }
    }
}

extension ModalDescription {
    /// The `value` of a `result` that gives `answer` to this modal: the inverse of
    /// `validateResult`, for clients written in Swift (the kiosk).
    /// - Parameter answer: The answer.
    /// - Returns: The value to send.
    public func resultValue(_ answer: ModalAnswer) -> JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
        switch answer {
        case .action(let index, let textFields):
            if case .actionSheet = self { return ["action": .number(Double(index))] }
            return ["action": .number(Double(index)), "textFields": strings(textFields)]
        case .callbackURL(let url):
            return ["url": .string(url)]
        case .mail(let status, let to, let cc, let bcc, let subject, let body, let from, let attachments):
            var mail: [(String, JSONValue)] = [
                ("to", strings(to)), ("cc", strings(cc)), ("bcc", strings(bcc)), ("subject", .string(subject)),
                ("body", .string(body)),
            ]
            if let from { mail.append(("from", .string(from))) }
            if let attachments { mail.append(("attachments", strings(attachments))) }
            return ["status": .string(status.rawValue), "mail": .object(mail)]
        case .message(let status, let recipients, let body, let subject):
            var message: [(String, JSONValue)] = [("recipients", strings(recipients)), ("body", .string(body))]
            if let subject { message.append(("subject", .string(subject))) }
            return ["status": .string(status.rawValue), "message": .object(message)]
        case .picked(let items):
            return [
                "items": .array(
                    items.map {
                        [
                            "name": .string($0.name), "mimeType": .string($0.mimeType),
                            "size": .number(Double($0.size)),
                            "sha256": .string($0.sha256),
                        ]
                    })
            ]
        case .custom(let value):
            return value
        }
    }
}
