import Foundation
import ModalProtocol

/// A key the person pressed, decoded from the terminal.
public enum Key: Equatable, Sendable {
    /// A printable character.
    case character(Character)
    /// Enter.
    case enter
    /// Backspace.
    case backspace
    /// Tab.
    case tab
    /// Escape.
    case escape
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Ctrl-C.
    case interrupt
}

/// What the model asks its owner to do.
public enum KioskEffect: Equatable, Sendable {
    /// Send a protocol message.
    case send(ClientMessage)
    /// Upload files (paths on this disk) for a picker, then send the result.
    case upload(id: String, paths: [String])
    /// Leave (Ctrl-C).
    case quit
}

/// The kiosk's state: controls, notices, the connection, and the modal on screen with the
/// person's edits. Pure: events in, effects out; the screen is drawn from it.
public struct KioskModel: Sendable {
    /// The connection as the person sees it.
    public enum Connection: String, Sendable {
        case connecting, connected, reconnecting, unauthorized
    }

    /// One editable line of the open modal.
    public struct Field: Sendable, Equatable {
        /// The label.
        public var label: String
        /// The text typed so far.
        public var text: String
        /// Whether to mask it.
        public var secret: Bool
    }

    /// One choice of the open modal.
    public struct Choice: Sendable, Equatable {
        /// The title.
        public var title: String
        /// The style.
        public var style: ActionStyle
        /// Whether it can be picked.
        public var enabled: Bool
    }

    /// The modal on screen.
    public struct OpenModal: Sendable, Equatable {
        /// Its id.
        public var id: String
        /// What the host sent.
        public var modal: ModalDescription
        /// The editable lines.
        public var fields: [Field]
        /// The choices.
        public var choices: [Choice]
        /// Which field has focus (`fields.count`: the choices).
        public var focus: Int
        /// Text shown under the title.
        public var note: String?
        /// Upload progress, 0...1, while uploading.
        public var progress: Double?
        /// Whether an answer was sent (waiting for the dismiss).
        public var answered = false
    }

    /// The controls.
    public private(set) var controls: [ControlItem] = []
    /// The latest notices, newest last.
    public private(set) var notices: [(level: StatusLevel, text: String)] = []
    /// The connection state.
    public var connection: Connection = .connecting
    /// Modals presented and not dismissed, in order; the first is on screen.
    public private(set) var modals: [OpenModal] = []

    /// The client's name and group, for the header.
    public let name: String
    /// The group, if any.
    public let group: String?

    /// Creates the model.
    /// - Parameters:
    ///   - name: The kiosk's name.
    ///   - group: Its group.
    public init(name: String, group: String?) {
        self.name = name
        self.group = group
    }

    /// The capabilities this client implements.
    public static let capabilities = [
        "alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker", "mediaPicker",
    ]

    /// The modal on screen, if any.
    public var current: OpenModal? { modals.first }

    // MARK: Host messages

    /// Applies a host message.
    /// - Parameter message: The message.
    public mutating func receive(_ message: HostMessage) {
        switch message {
        case .welcome(_, let resumed, _):
            connection = .connected
            if !resumed { modals = [] }
        case .controls(_, let items):
            controls = items
        case .status(_, let level, let text):
            notices.append((level, text))
            if notices.count > 5 { notices.removeFirst(notices.count - 5) }
        case .present(_, let id, let modal, _):
            guard !modals.contains(where: { $0.id == id }) else { return }
            modals.append(Self.open(id, modal))
        case .dismiss(_, let id, _):
            modals.removeAll { $0.id == id }
        case .update(_, let id, let actions):
            guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
            for (offset, state) in actions.enumerated() where offset < modals[index].choices.count {
                modals[index].choices[offset].enabled = state
            }
        case .error(_, let error):
            notices.append((.error, "host: \(error.message)"))
        case .uploadAck:
            // NB: the kiosk paces its uploads by the window in a later change; until then
            // acknowledgements need no state here.
            break
        }
    }

    static func open(_ id: String, _ modal: ModalDescription) -> OpenModal {
        func choices(_ titles: [(String, ActionStyle)]) -> [Choice] {
            titles.map { Choice(title: $0.0, style: $0.1, enabled: true) }
        }
        var open = OpenModal(id: id, modal: modal, fields: [], choices: [], focus: 0)
        switch modal {
        case .alert(_, let message, let textFields, let actions):
            open.note = message
            open.fields = textFields.map {
                Field(label: $0.placeholder ?? $0.kind.rawValue, text: $0.text ?? "", secret: $0.kind == .password)
            }
            open.choices = actions.map { Choice(title: $0.title, style: $0.style, enabled: $0.enabled) }
        case .actionSheet(_, let message, _, let actions):
            open.note = message
            open.choices = actions.map { Choice(title: $0.title, style: $0.style, enabled: $0.enabled) }
        case .mailComposer(let to, let cc, let bcc, let subject, let body, _):
            open.fields = [
                Field(label: "To", text: to.joined(separator: ", "), secret: false),
                Field(label: "Cc", text: cc.joined(separator: ", "), secret: false),
                Field(label: "Bcc", text: bcc.joined(separator: ", "), secret: false),
                Field(label: "Subject", text: subject, secret: false), Field(label: "Body", text: body, secret: false),
            ]
            open.choices = choices([("Cancel", .cancel), ("Save draft", .default), ("Send", .default)])
        case .messageComposer(let recipients, _, let body):
            open.fields = [
                Field(label: "To", text: recipients.joined(separator: ", "), secret: false),
                Field(label: "Message", text: body, secret: false),
            ]
            open.choices = choices([("Cancel", .cancel), ("Send", .default)])
        case .webAuthentication(let url, let callbackURL, let scheme):
            if callbackURL != nil {
                open.note = "Open this address on a phone or computer and sign in; this closes by itself:\n\(url)"
                open.choices = choices([("Cancel", .cancel)])
            } else {
                open.note = "Open this address, sign in, then paste the \(scheme ?? "callback") address:\n\(url)"
                open.fields = [Field(label: "Callback URL", text: "", secret: false)]
                open.choices = choices([("Cancel", .cancel), ("Done", .default)])
            }
        case .photoPicker(let limit, _, let maxBytes):
            open.note = "Up to \(limit) file(s), \(maxBytes) bytes in all. Paths separated by commas."
            open.fields = [Field(label: "Files", text: "", secret: false)]
            open.choices = choices([("Cancel", .cancel), ("Send", .default)])
        case .mediaPicker(_, let multiple, let maxBytes):
            open.note = "\(multiple ? "Any number of files" : "One file"), \(maxBytes) bytes in all."
            open.fields = [Field(label: "Files", text: "", secret: false)]
            open.choices = choices([("Cancel", .cancel), ("Send", .default)])
        case .custom:
            open.note = "This kiosk cannot show this."
        }
        open.focus = open.fields.isEmpty ? 0 : 0
        return open
    }

    // MARK: Keys

    /// Applies a key press.
    /// - Parameter key: The key.
    /// - Returns: What to do.
    public mutating func press(_ key: Key) -> [KioskEffect] {
        if key == .interrupt { return [.quit] }
        guard var open = modals.first else { return pressOnControls(key) }
        defer { if !modals.isEmpty, modals[0].id == open.id { modals[0] = open } }
        guard !open.answered else { return [] }
        let onChoices = open.focus >= open.fields.count
        switch key {
        case .escape:
            return pick(&open, open.choices.firstIndex { $0.style == .cancel && $0.enabled })
        case .tab, .down:
            open.focus = min(open.fields.count, open.focus + 1)
        case .up:
            open.focus = max(0, open.focus - 1)
        case .enter:
            if onChoices {
                return pick(&open, open.choices.lastIndex { $0.enabled && $0.style != .cancel })
            }
            open.focus += 1
        case .backspace:
            if !onChoices, !open.fields[open.focus].text.isEmpty { open.fields[open.focus].text.removeLast() }
            return inputEffect(open)
        case .character(let character):
            if onChoices {
                guard let number = character.wholeNumberValue else { return [] }
                return pick(&open, number - 1)
            }
            open.fields[open.focus].text.append(character)
            return inputEffect(open)
        case .interrupt:
            return [.quit]
        }
        return []
    }

    private func inputEffect(_ open: OpenModal) -> [KioskEffect] {
        guard case .alert = open.modal else { return [] }
        return [.send(.input(id: open.id, textFields: open.fields.map(\.text)))]
    }

    private mutating func pressOnControls(_ key: Key) -> [KioskEffect] {
        guard case .character(let character) = key, let number = character.wholeNumberValue,
            controls.indices.contains(number - 1), controls[number - 1].enabled
        else { return [] }
        return [.send(.event(control: controls[number - 1].id))]
    }

    /// Picks a choice by index (0-based), if it is enabled.
    private func pick(_ open: inout OpenModal, _ index: Int?) -> [KioskEffect] {
        guard let index, open.choices.indices.contains(index), open.choices[index].enabled else { return [] }
        let cancel = open.choices[index].style == .cancel
        let texts = open.fields.map(\.text)
        func list(_ text: String) -> [String] {
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        func answer(_ answer: ModalAnswer) -> [KioskEffect] {
            [.send(.result(id: open.id, value: open.modal.resultValue(answer)))]
        }
        var effects: [KioskEffect] = []
        switch open.modal {
        case .alert:
            effects = answer(.action(index: index, textFields: texts))
        case .actionSheet:
            effects = answer(.action(index: index, textFields: []))
        case .mailComposer:
            let status: MailStatus = [.cancelled, .saved, .sent][index]
            effects = answer(
                .mail(
                    status: status, to: list(texts[0]), cc: list(texts[1]), bcc: list(texts[2]), subject: texts[3],
                    body: texts[4]))
        case .messageComposer:
            effects = answer(
                .message(status: index == 0 ? .cancelled : .sent, recipients: list(texts[0]), body: texts[1]))
        case .webAuthentication:
            effects =
                cancel
                ? [.send(.failure(id: open.id, code: .cancelled, message: nil))]
                : answer(.callbackURL(texts.first ?? ""))
        case .photoPicker, .mediaPicker:
            if cancel {
                effects = answer(.picked([]))
            } else {
                let paths = list(texts[0])
                open.progress = 0
                effects = [.upload(id: open.id, paths: paths)]
            }
        case .custom:
            effects = [.send(.failure(id: open.id, code: .unsupported, message: nil))]
        }
        open.answered = true
        return effects
    }

    /// Shows upload progress, or a failure that lets the person try again.
    /// - Parameters:
    ///   - id: The modal.
    ///   - progress: 0...1, or `nil` with `error` when the upload could not start.
    ///   - error: Why it failed.
    public mutating func uploadProgress(_ id: String, _ progress: Double?, error: String? = nil) {
        guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
        modals[index].progress = progress
        if let error {
            modals[index].note = error
            modals[index].answered = false
        }
    }
}
