import Foundation
import RemoteModalProtocol

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
    /// Read these files (paths on this disk) for a picker, then call `KioskModel.startUpload`.
    case upload(id: String, paths: [String])
    /// Send this piece of a picker's files.
    case sendChunk(id: String, chunk: KioskUpload.Chunk)
    /// Forget the files read for this picker (the upload ended or was cancelled).
    case dropUpload(id: String)
    /// Leave (Ctrl-C).
    case quit
}

/// A notice shown under the controls.
public struct Notice: Sendable, Equatable {
    /// Its level.
    public var level: StatusLevel
    /// Its text.
    public var text: String
    /// Increases by one per notice, so a reader can tell which are new.
    public var serial: Int
}

/// The kiosk's state: controls, notices, the connection, and the modal on screen with the
/// person's edits. Pure: events in, effects out; the screen is drawn from it.
public struct KioskModel: Sendable {
    /// The connection as the person sees it.
    public enum Connection: String, Sendable {
        case connecting, connected, reconnecting, unauthorized
    }

    /// One editable field of the open modal.
    public struct Field: Sendable, Equatable {
        /// The label.
        public var label: String
        /// The text typed so far.
        public var text: String
        /// Whether to mask it.
        public var secret: Bool
        /// Whether Enter starts a new line (a mail or message body) instead of moving on.
        public var multiline = false
        /// What the field is for, shown beside the label ("digits", "one-time code").
        public var hint: String?
        /// What is wrong with its text ("Not a mail address: bob", a file that cannot be
        /// read), shown under it; cleared when its text changes, re-evaluated on Send.
        public var error: String?
    }

    /// One choice of the open modal.
    public struct Choice: Sendable, Equatable {
        /// The title.
        public var title: String
        /// The style.
        public var style: ActionStyle
        /// Whether it can be picked.
        public var enabled: Bool
        /// Whether it is the default: Enter picks it.
        public var preferred = false
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
        /// An address to show whole (never wrapped) and as a QR code.
        public var url: String?
        /// The most upload chunks the host lets a client keep unacknowledged.
        public var uploadWindow = 8
        /// The picker's upload, once the files were read.
        public var upload: KioskUpload?
        /// Why the upload stopped: the host refused a chunk (a file that could not be read
        /// or is over the limits is an `error` of the Files field).
        public var uploadError: String?
        /// Whether the files are being read (between Send and the first chunk).
        public var reading = false
        /// Whether an answer was sent (waiting for the dismiss).
        public var answered = false
        /// The fields' texts as presented, to tell whether the person wrote something.
        public var initialTexts: [String] = []
        /// A composer someone wrote in: the last key was an Escape that asked before
        /// discarding (the next Escape cancels; any other key disarms it).
        public var discardArmed = false

        /// The choice Enter picks, as in the browser (whose focus starts there): the
        /// preferred one if enabled, else the first enabled one.
        public var defaultChoice: Int? {
            // A disabled preferred choice (Sign In before the fields pass its rule) leaves no
            // default: Enter must not fall through to another choice (Cancel, which threw
            // away what was typed).
            if let preferred = choices.firstIndex(where: { $0.preferred }) {
                return choices[preferred].enabled ? preferred : nil
            }
            return choices.firstIndex { $0.enabled }
        }

        /// Why Escape does nothing here, as in the browser: an alert or action sheet is
        /// answered by its cancel action, and one without (a group approval: Escape would
        /// end it for every member) or with it disabled stays. `nil`: Escape cancels.
        public var escapeRefusal: String? {
            switch modal {
            case .alert, .actionSheet:
                guard let cancel = choices.firstIndex(where: { $0.style == .cancel }) else {
                    return "Please choose one of the options."
                }
                return choices[cancel].enabled ? nil : "Cancel is not available right now."
            default:
                return nil
            }
        }

        /// Whether Escape only asks before cancelling: a composer someone wrote in (its texts
        /// differ from those presented) whose last key was not an Escape that asked already.
        public var escapeAsksFirst: Bool {
            switch modal {
            case .mailComposer, .messageComposer: !discardArmed && fields.map(\.text) != initialTexts
            default: false
            }
        }

        /// Whether the files are on their way (read, sending, or waiting for a reconnect).
        public var uploading: Bool { reading || (upload != nil && !answered) }
    }

    /// The most notices kept.
    public static let noticeLimit = 6

    /// The controls.
    public private(set) var controls: [ControlItem] = []
    /// The latest notices, newest last (at most `noticeLimit`; errors are kept longest).
    public private(set) var notices: [Notice] = []
    /// The connection state (set it with `connectionChanged`).
    public private(set) var connection: Connection = .connecting
    /// Modals presented and not dismissed, in order; the first is on screen.
    public private(set) var modals: [OpenModal] = []
    /// Something the person must read first (the host restarted); cleared by the next key.
    public private(set) var banner: String?
    /// The notice a banner leaves in the list once it is cleared (shown in both at once, the
    /// restart was said twice on one screen).
    private var bannerNotice: (level: StatusLevel, text: String)?

    /// The client's name and group, for the header.
    public let name: String
    /// The group, if any.
    public let group: String?

    private var welcomed = false
    /// Titles of modals the host dismissed because it was shutting down.
    private var shutDown: [String] = []
    private var noticeSerial = 0
    /// Modals the person left (Escape while waiting); a re-sent `present` does not bring them back.
    private var abandoned: Set<String> = []

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

    /// The serial of the newest notice (0 before any).
    public var lastNoticeSerial: Int { noticeSerial }

    // MARK: Host messages

    /// Applies a host message.
    /// - Parameter message: The message.
    /// - Returns: What to do (upload chunks the message lets go out).
    @discardableResult
    public mutating func receive(_ message: HostMessage) -> [KioskEffect] {
        switch message {
        case .welcome(_, let resumed, _):
            connection = .connected
            defer { welcomed = true }
            guard !resumed else {
                shutDown = []
                return []
            }
            let lost = modals
            let titles = (shutDown + lost.map { Self.title(of: $0.modal) }).map { "\u{201C}\($0)\u{201D}" }
                .joined(separator: ", ")
            modals = []
            abandoned = []
            shutDown = []
            guard welcomed else { return [] }
            // We asked to resume and got a fresh session: the host restarted (or forgot us).
            if titles.isEmpty {
                banner = "The host restarted."
                bannerNotice = (.info, "The host restarted.")
            } else {
                banner = "The host restarted: \(titles) was cancelled. Start again from the controls."
                bannerNotice = (.error, "The host restarted: \(titles) was cancelled.")
            }
            return lost.filter { $0.upload != nil || $0.reading }.map { .dropUpload(id: $0.id) }
        case .controls(_, let items):
            controls = items
        case .status(_, let level, let text):
            notify(level, text)
        case .present(_, let id, let modal, let uploads):
            guard !abandoned.contains(id) else { return [] }
            let held = Dictionary(
                (uploads?.received ?? []).map { ($0.file, $0.bytes) }, uniquingKeysWith: { first, _ in first })
            if modals.contains(where: { $0.id == id }) {
                // Re-sent after a resume: an upload continues where the host says it stands.
                return uploadResumed(id: id, window: uploads?.window, held: held)
            }
            clearBanner()
            var open = Self.open(id, modal)
            if let window = uploads?.window { open.uploadWindow = max(1, window) }
            modals.append(open)
        case .uploadAck(_, let id, let file, let received):
            return uploadAcknowledged(id: id, file: file, received: received)
        case .dismiss(_, let id, let reason):
            let ended = modals.first { $0.id == id }
            if let ended, reason == .shutdown, !ended.answered {
                // Said in words when the host is back (or now, if the person looks).
                shutDown.append(Self.title(of: ended.modal))
                banner = "The host is shutting down: \u{201C}\(Self.title(of: ended.modal))\u{201D} was cancelled."
            }
            if let ended, !ended.answered, let kept = Self.unsentText(of: ended) {
                // The host ended a composer someone wrote in without taking it (shutting
                // down, an expired session): what they wrote stays on screen to copy. An
                // error-level notice, so later notices do not push it out first.
                notify(.error, "What you wrote in \u{201C}\(Self.title(of: ended.modal))\u{201D} was not sent: \(kept)")
            }
            modals.removeAll { $0.id == id }
            abandoned.remove(id)
            if let ended, ended.upload != nil || ended.reading { return [.dropUpload(id: id)] }
        case .update(_, let id, let actions):
            guard let index = modals.firstIndex(where: { $0.id == id }) else { return [] }
            for (offset, state) in actions.enumerated() where offset < modals[index].choices.count {
                modals[index].choices[offset].enabled = state
            }
        case .error(_, let error):
            if error.code == .uploadInvalid, let index = modals.firstIndex(where: { $0.upload != nil && !$0.answered })
            {
                modals[index].upload?.pause()
                // The first refusal says why (a type the picker does not accept, ...); the
                // refusals of the chunks already on their way only follow from it.
                guard modals[index].uploadError == nil else { return [] }
                modals[index].uploadError = "The host refused a piece: \(error.message)"
            }
            notify(.error, "host: \(error.message)")
        case .resumed, .unknown:
            // The end of a resume's re-sent messages, and what a newer host sends that this
            // kiosk does not know: nothing to show (the connection records their `seq`).
            break
        case .presentUnknown(_, let id, let kind):
            // A kind from a newer host: say so to the host rather than leave its flow waiting.
            return [.send(.failure(id: id, code: .unsupported, message: "this kiosk cannot show '\(kind)' modals"))]
        }
        return []
    }

    /// Applies a connection change: uploads pause while disconnected.
    /// - Parameter state: The new state.
    public mutating func connectionChanged(_ state: Connection) {
        connection = state
        guard state != .connected else { return }
        for index in modals.indices where modals[index].upload != nil { modals[index].upload?.pause() }
    }

    /// Applies an `uploadAck`.
    /// - Parameters:
    ///   - id: The picker.
    ///   - file: The file's index.
    ///   - received: Contiguous bytes the host holds of it.
    /// - Returns: The next chunks, or the result once every file is acknowledged.
    public mutating func uploadAcknowledged(id: String, file: Int, received: Int) -> [KioskEffect] {
        guard let index = modals.firstIndex(where: { $0.id == id }), modals[index].upload != nil else { return [] }
        modals[index].upload?.acknowledge(file: file, received: received)
        return pump(index)
    }

    /// Continues a paused upload at the offsets the host holds (from a re-sent `present`).
    /// - Parameters:
    ///   - id: The picker.
    ///   - window: The `uploadWindow` of the re-sent `present`, if it had one.
    ///   - held: File index to bytes held.
    /// - Returns: The chunks to send.
    public mutating func uploadResumed(id: String, window: Int?, held: [Int: Int]) -> [KioskEffect] {
        guard let index = modals.firstIndex(where: { $0.id == id }) else { return [] }
        if let window { modals[index].uploadWindow = max(1, window) }
        return resumeUpload(at: index, held: held)
    }

    private mutating func resumeUpload(at index: Int, held: [Int: Int]) -> [KioskEffect] {
        guard var upload = modals[index].upload, !modals[index].answered, modals[index].uploadError == nil else {
            return []
        }
        upload.resume(held: held)
        modals[index].upload = upload
        return pump(index)
    }

    /// Starts sending the files the owner read for a picker.
    /// - Parameters:
    ///   - id: The picker.
    ///   - files: The files (name, type, size, hash).
    /// - Returns: The first chunks (none while disconnected; they go after the resume).
    public mutating func startUpload(id: String, files: [KioskUpload.File]) -> [KioskEffect] {
        guard let index = modals.firstIndex(where: { $0.id == id }), modals[index].reading else { return [] }
        modals[index].reading = false
        var upload = KioskUpload(files: files, window: modals[index].uploadWindow)
        if connection != .connected { upload.pause() }
        modals[index].upload = upload
        return pump(index)
    }

    /// Reports files that could not be read or are over the picker's limits: said under
    /// the Files field, which gets the focus, so the person can change the paths and try
    /// again (changing them clears it).
    /// - Parameters:
    ///   - id: The picker.
    ///   - error: Why.
    public mutating func uploadFailed(id: String, error: String) {
        guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
        modals[index].reading = false
        modals[index].upload = nil
        modals[index].answered = false
        if modals[index].fields.isEmpty {
            modals[index].uploadError = error
        } else {
            modals[index].uploadError = nil
            modals[index].fields[0].error = error
            modals[index].focus = 0
        }
    }

    private mutating func pump(_ index: Int) -> [KioskEffect] {
        guard var upload = modals[index].upload, !modals[index].answered else { return [] }
        let id = modals[index].id
        if upload.complete {
            modals[index].answered = true
            let items = upload.files.map {
                PickedItem(name: $0.name, mimeType: $0.mimeType, size: $0.size, sha256: $0.sha256)
            }
            return [
                .dropUpload(id: id), .send(.result(id: id, value: modals[index].modal.resultValue(.picked(items)))),
            ]
        }
        let chunks = upload.nextChunks()
        modals[index].upload = upload
        return chunks.map { .sendChunk(id: id, chunk: $0) }
    }

    /// What keeps a mail from being sent: an entry of To, Cc or Bcc that is not a mail
    /// address, or no recipient at all (the field to fix, and why).
    static func mailProblem(_ fields: [Field], _ list: (String) -> [String]) -> (label: String, message: String)? {
        var any = false
        for label in ["To", "Cc", "Bcc"] {
            let addresses = list(fields.first { $0.label == label }?.text ?? "")
            if let wrong = addresses.first(where: { !looksLikeMailAddress($0) }) {
                return (label, "Not a mail address: \(wrong)")
            }
            any = any || !addresses.isEmpty
        }
        return any ? nil : ("To", "Add a recipient first.")
    }

    /// What keeps a message from being sent: no recipient, or one that is neither a phone
    /// number (it has digits) nor an address (a handle some services use).
    static func messageProblem(_ recipients: [String]) -> String? {
        guard !recipients.isEmpty else { return "Add a recipient first." }
        let wrong = recipients.first { !$0.contains(where: \.isNumber) && !looksLikeMailAddress($0) }
        return wrong.map { "Not a phone number or address: \($0)" }
    }

    /// A mail address as a person would type one: something, one @, a domain; no spaces.
    /// - Parameter text: One entry of a recipients field.
    /// - Returns: Whether a mail to it may be sent.
    public static func looksLikeMailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        let forbidden = Set(" \t,;<>\"")
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !text.contains(where: forbidden.contains)
    }

    /// Clears the banner; what it said stays in the notices.
    private mutating func clearBanner() {
        banner = nil
        if let (level, text) = bannerNotice { notify(level, text) }
        bannerNotice = nil
    }

    private mutating func notify(_ level: StatusLevel, _ text: String) {
        noticeSerial += 1
        notices.append(Notice(level: level, text: text, serial: noticeSerial))
        while notices.count > Self.noticeLimit {
            // The oldest that is not an error goes first; errors go only when all are errors.
            let victim = notices.firstIndex { $0.level != .error } ?? 0
            notices.remove(at: victim)
        }
    }

    /// A composer's fields as "To: ann@example.com · Body: ...", when someone changed them.
    static func unsentText(of open: OpenModal) -> String? {
        switch open.modal {
        case .mailComposer, .messageComposer:
            guard open.fields.map(\.text) != open.initialTexts else { return nil }
            return open.fields.filter { !$0.text.isEmpty }.map { "\($0.label): \($0.text)" }.joined(
                separator: " \u{00B7} ")
        default:
            return nil
        }
    }

    static func title(of modal: ModalDescription) -> String {
        switch modal {
        case .alert(let text, _, _, _), .actionSheet(let text, _, _, _): text ?? "Question"
        case .mailComposer: "New mail"
        case .messageComposer: "New message"
        case .webAuthentication: "Sign in with your provider"
        case .photoPicker: "Choose photos"
        case .mediaPicker: "Choose media"
        case .custom(let name, _): "Custom: \(name)"
        }
    }

    static func open(_ id: String, _ modal: ModalDescription) -> OpenModal {
        func choices(_ titles: [(String, ActionStyle)], preferred: Int? = nil) -> [Choice] {
            titles.enumerated().map {
                Choice(title: $0.element.0, style: $0.element.1, enabled: true, preferred: $0.offset == preferred)
            }
        }
        var open = OpenModal(id: id, modal: modal, fields: [], choices: [], focus: 0)
        switch modal {
        case .alert(_, let message, let textFields, let actions):
            open.note = message
            open.fields = textFields.map {
                Field(
                    label: $0.placeholder ?? $0.kind.rawValue, text: $0.text ?? "",
                    secret: $0.isSecureTextEntry ?? ($0.kind == .password), hint: Self.hint(for: $0))
            }
            open.choices = actions.map {
                Choice(title: $0.title, style: $0.style, enabled: $0.enabled, preferred: $0.preferred)
            }
        case .actionSheet(_, let message, _, let actions):
            open.note = message
            open.choices = actions.map {
                Choice(title: $0.title, style: $0.style, enabled: $0.enabled, preferred: $0.preferred)
            }
        case .mailComposer(let to, let cc, let bcc, let subject, let body, let isHTML, let options):
            open.fields = [
                Field(label: "To", text: to.joined(separator: ", "), secret: false),
                Field(label: "Cc", text: cc.joined(separator: ", "), secret: false),
                Field(label: "Bcc", text: bcc.joined(separator: ", "), secret: false),
            ]
            if let from = options.from { open.fields.append(Field(label: "From", text: from, secret: false)) }
            open.fields.append(Field(label: "Subject", text: subject, secret: false))
            open.fields.append(
                Field(
                    label: "Body", text: isHTML ? KioskHTML.readableText(body) : body, secret: false, multiline: true,
                    hint: isHTML ? "HTML shown as text" : nil))
            if !options.attachments.isEmpty {
                open.note =
                    "Attached: "
                    + options.attachments.map { "\($0.name) (\(KioskUpload.format($0.size)))" }.joined(separator: ", ")
                open.fields.append(
                    Field(
                        label: "Attachments", text: options.attachments.map(\.name).joined(separator: ", "),
                        secret: false, hint: "delete a name to leave it out"))
            }
            open.choices = choices([("Cancel", .cancel), ("Save draft", .default), ("Send", .default)], preferred: 2)
        case .messageComposer(let recipients, let subject, let body):
            open.fields = [Field(label: "To", text: recipients.joined(separator: ", "), secret: false)]
            if let subject { open.fields.append(Field(label: "Subject", text: subject, secret: false)) }
            open.fields.append(Field(label: "Message", text: body, secret: false, multiline: true))
            open.choices = choices([("Cancel", .cancel), ("Send", .default)], preferred: 1)
        case .webAuthentication(let url, let callbackURL, let scheme, _):
            open.url = url
            if callbackURL != nil {
                open.note =
                    "Open this address on a phone or a computer and sign in; this closes by itself."
                open.choices = choices([("Cancel", .cancel)])
            } else {
                open.note = "Open this address, sign in, then paste the \(scheme ?? "callback") address below."
                open.fields = [Field(label: "Callback URL", text: "", secret: false)]
                open.choices = choices([("Cancel", .cancel), ("Done", .default)], preferred: 1)
            }
        case .photoPicker(let limit, let filter, let maxBytes, let prompt):
            let count = limit == 0 ? "Any number of files" : limit == 1 ? "One file" : "Up to \(limit) files"
            open.note = [
                prompt, Self.accepted(filter, photos: true) + ".",
                "\(count), \(KioskUpload.format(maxBytes)) in all. Paths separated by commas.",
            ].compactMap { $0 }.joined(separator: "\n")
            open.fields = [Field(label: "Files", text: "", secret: false)]
            open.choices = choices([("Cancel", .cancel), ("Send", .default)], preferred: 1)
        case .mediaPicker(let types, let multiple, let maxBytes, let prompt):
            open.note = [
                prompt, Self.accepted(types, photos: false) + ".",
                "\(multiple ? "Any number of files" : "One file"), \(KioskUpload.format(maxBytes)) in all.",
            ].compactMap { $0 }.joined(separator: "\n")
            open.fields = [Field(label: "Files", text: "", secret: false)]
            open.choices = choices([("Cancel", .cancel), ("Send", .default)], preferred: 1)
        case .custom:
            open.note = "This kiosk cannot show this."
            open.choices = choices([("Close", .cancel)])
        }
        open.initialTexts = open.fields.map { $0.text }
        return open
    }

    /// What a picker accepts, in words ("Images only", "Audio or video").
    static func accepted(_ types: [String], photos: Bool) -> String {
        let known = Set(types.map { $0.lowercased() })
        let audio = ["audio", "music", "podcast", "audiobook", "anyaudio", "any"].contains { known.contains($0) }
        let video =
            ["video", "videos", "movie", "tvshow", "videopodcast", "musicvideo", "homevideo", "anyvideo", "any"]
            .contains { known.contains($0) }
        let image = ["image", "images", "livephotos"].contains { known.contains($0) }
        switch (photos, image, video, audio) {
        case (true, true, false, _): return "Images only"
        case (true, false, true, _): return "Videos only"
        case (true, _, _, _): return "Images or videos"
        case (false, _, false, true): return "Audio only"
        case (false, _, true, false): return "Video only"
        default: return "Audio or video"
        }
    }

    /// What a text field's keyboard and content type say about it, for a terminal.
    static func hint(for field: TextFieldSpec) -> String? {
        var parts: [String] = []
        switch field.contentType {
        case "one-time-code": parts.append("one-time code")
        case "username": parts.append("user name")
        case "email": parts.append("e-mail address")
        case "tel": parts.append("phone number")
        case "new-password": parts.append("new password")
        case "current-password": parts.append("password")
        case "url": parts.append("web address")
        case .some(let other) where !other.isEmpty: parts.append(other)
        default: break
        }
        switch field.keyboard?.rawValue {
        case "numeric": parts.append("digits")
        case "decimal": parts.append("a number")
        case "phone" where !parts.contains("phone number"): parts.append("phone number")
        case "email" where !parts.contains("e-mail address"): parts.append("e-mail address")
        case "url" where !parts.contains("web address"): parts.append("web address")
        default: break
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    // MARK: Keys

    /// Applies a key press.
    /// - Parameter key: The key.
    /// - Returns: What to do.
    public mutating func press(_ key: Key) -> [KioskEffect] {
        if key == .interrupt { return [.quit] }
        clearBanner()
        guard var open = modals.first else { return pressOnControls(key) }
        if key == .escape, open.answered || open.uploading {
            // Every wait has a way out: stop waiting, cancel the modal.
            return leave(open)
        }
        defer { if !modals.isEmpty, modals[0].id == open.id { modals[0] = open } }
        if open.uploadError != nil, open.upload != nil {
            // The host refused a piece: 1 cancels, 2 or Enter tries again from what it acknowledged.
            switch key {
            case .character("1"): return leave(open)
            case .character("3"):
                // Back to the paths: the host refused these files (a type it does not accept);
                // its words stay under them until they change.
                if !open.fields.isEmpty {
                    open.fields[0].error = open.uploadError
                    open.uploadError = nil
                }
                open.upload = nil
                open.answered = false
                open.focus = 0
                return [.dropUpload(id: open.id)]
            case .character("2"), .enter:
                open.uploadError = nil
                open.upload?.retry()
                modals[0] = open
                let effects = pump(0)
                open = modals[0]
                return effects
            default: return []
            }
        }
        guard !open.answered, !open.uploading else { return [] }
        if key != .escape { open.discardArmed = false }
        let onChoices = open.focus >= open.fields.count
        switch key {
        case .escape:
            if let refusal = open.escapeRefusal {
                banner = refusal
                return []
            }
            // As in the browser: what was written in a composer is not thrown away by one key.
            if open.escapeAsksFirst {
                open.discardArmed = true
                banner = "Press Escape again to discard what you wrote."
                return []
            }
            if let cancel = open.choices.firstIndex(where: { $0.style == .cancel && $0.enabled }) {
                return pick(&open, cancel)
            }
            return leave(open)
        case .tab, .down:
            open.focus = min(open.fields.count, open.focus + 1)
        case .up:
            open.focus = max(0, open.focus - 1)
        case .enter:
            if onChoices {
                if let choice = open.defaultChoice { return pick(&open, choice) }
                if let preferred = open.choices.first(where: { $0.preferred }) {
                    let reason = open.fields.isEmpty ? "right now" : "with what is filled in"
                    banner = "\u{201C}\(preferred.title)\u{201D} is not available \(reason)."
                }
                return []
            }
            if open.fields[open.focus].multiline {
                edit(&open.fields[open.focus]) { $0.append("\n") }
                return inputEffect(open)
            }
            open.focus += 1
        case .backspace:
            if !onChoices, !open.fields[open.focus].text.isEmpty { edit(&open.fields[open.focus]) { $0.removeLast() } }
            return inputEffect(open)
        case .character(let character):
            if onChoices {
                guard let number = character.wholeNumberValue else { return [] }
                return pick(&open, number - 1)
            }
            edit(&open.fields[open.focus]) { $0.append(character) }
            return inputEffect(open)
        case .interrupt:
            return [.quit]
        }
        return []
    }

    /// Changes a field's text; what was said about the old text goes (a file too large is
    /// not a reason to refuse another one).
    private func edit(_ field: inout Field, _ change: (inout String) -> Void) {
        change(&field.text)
        field.error = nil
    }

    /// Says what is wrong under the field it concerns and gives that field the focus (the
    /// other fields' earlier errors go: Send checked them again).
    private func refuse(_ open: inout OpenModal, field: Int, _ message: String) {
        for index in open.fields.indices { open.fields[index].error = nil }
        open.fields[field].error = message
        open.focus = field
    }

    /// Cancels the modal on screen with `failure` `cancelled` and takes it off the screen.
    private mutating func leave(_ open: OpenModal) -> [KioskEffect] {
        modals.removeAll { $0.id == open.id }
        abandoned.insert(open.id)
        var effects: [KioskEffect] = []
        if open.upload != nil || open.reading { effects.append(.dropUpload(id: open.id)) }
        effects.append(.send(.failure(id: open.id, code: .cancelled, message: nil)))
        return effects
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
    private mutating func pick(_ open: inout OpenModal, _ index: Int?) -> [KioskEffect] {
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
        case .mailComposer(_, _, _, _, let body, let isHTML, let options):
            let status: MailStatus = [.cancelled, .saved, .sent][index]
            let fields = open.fields
            let field = { (label: String) in fields.first { $0.label == label }?.text }
            if status == .sent, let problem = Self.mailProblem(fields, list) {
                // Not sent (and never reported as sent): say under the field what to fix, and go there.
                refuse(&open, field: fields.firstIndex { $0.label == problem.label } ?? 0, problem.message)
                return []
            }
            // An HTML body the person did not change goes back as the host wrote it; one they
            // edited (as text) goes back as HTML made from that text.
            var edited = field("Body") ?? ""
            if isHTML { edited = edited == KioskHTML.readableText(body) ? body : KioskHTML.html(fromText: edited) }
            // The attachments whose names are still in the field, once each.
            var kept: [String]?
            if !options.attachments.isEmpty {
                var names: [String] = []
                for name in list(field("Attachments") ?? "")
                where options.attachments.contains(where: { $0.name == name }) && !names.contains(name) {
                    names.append(name)
                }
                kept = names
            }
            effects = answer(
                .mail(
                    status: status, to: list(field("To") ?? ""), cc: list(field("Cc") ?? ""),
                    bcc: list(field("Bcc") ?? ""), subject: field("Subject") ?? "", body: edited,
                    from: options.from == nil ? nil : field("From"), attachments: kept))
        case .messageComposer(_, let subject, _):
            let fields = open.fields
            let field = { (label: String) in fields.first { $0.label == label }?.text }
            if index == 1, let problem = Self.messageProblem(list(field("To") ?? "")) {
                refuse(&open, field: 0, problem)
                return []
            }
            effects = answer(
                .message(
                    status: index == 0 ? .cancelled : .sent, recipients: list(field("To") ?? ""),
                    body: field("Message") ?? "", subject: subject == nil ? nil : field("Subject")))
        case .webAuthentication:
            effects =
                cancel
                ? [.send(.failure(id: open.id, code: .cancelled, message: nil))]
                : answer(.callbackURL(texts.first ?? ""))
        case .photoPicker, .mediaPicker:
            if cancel {
                // `failure` `cancelled` lets the host drop whatever it holds of the files at once.
                effects = [.send(.failure(id: open.id, code: .cancelled, message: nil))]
            } else {
                // Read again: what was said about the paths is said again if still true.
                open.uploadError = nil
                for field in open.fields.indices { open.fields[field].error = nil }
                open.reading = true
                return [.upload(id: open.id, paths: list(texts[0]))]
            }
        case .custom:
            effects = [.send(.failure(id: open.id, code: .unsupported, message: nil))]
        }
        open.answered = true
        return effects
    }
}
