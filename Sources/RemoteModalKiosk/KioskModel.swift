import RemoteModalClient
import RemoteModalProtocol

/// What the kiosk asks the client core (or its owner) to do after a key.
public enum KioskIntent: Equatable, Sendable {
    /// Answer a modal with a reply the form built.
    case answer(id: String, FormReply)
    /// Report an alert's text fields as typed.
    case type(id: String, textFields: [String])
    /// Tap a control.
    case tap(String)
    /// Read these paths (on this disk) for a picker, then hand them to the client core.
    case pick(id: String, paths: [String])
    /// Go on with an upload the host refused, from what it acknowledged.
    case retryUpload(id: String)
    /// Connect now (after the host refused this kiosk).
    case retryNow
    /// Leave (Ctrl-C).
    case quit
}

/// A picker's upload as the person sees it.
public struct UploadProgress: Sendable, Equatable {
    /// Bytes the host acknowledged.
    public var acknowledged: Int
    /// Bytes in all.
    public var total: Int
    /// The files' names.
    public var names: [String]
}

/// A notice shown under the controls; identical ones collapse into one with a count.
public struct Notice: Sendable, Equatable {
    /// Its level.
    public var level: StatusLevel
    /// Its text.
    public var text: String
    /// Increases by one per notice, so a reader can tell which are new.
    public var serial: Int
    /// How many times it came.
    public var count = 1
    /// When it last came ("14:05:09"), shown once it came more than once.
    public var time = ""
    /// When its text, which quotes what a person typed, is replaced by words that quote
    /// nothing (the model's clock; `nil`: never). A kiosk's screen is shared: the next
    /// passer-by must not read what the last one wrote.
    public var forgetAt: Double?
    /// The words that replace the text at `forgetAt`.
    var forgotten: String?
    /// When it last came (the model's clock): it leaves the list `noticeLifetime` later.
    public var at: Double = 0
}

/// The kiosk's state: controls, notices, the connection in words, and the modals on screen
/// with the person's edits. The protocol is the client core's (`RemoteModalClient`): its
/// updates come in through `apply`, keys through `press`, which returns what to ask of it.
public struct KioskModel: Sendable {
    /// What Ctrl-C does: an unattended kiosk must not be closed by a passer-by's key.
    public enum QuitKey: Sendable, Equatable {
        /// Ctrl-C twice within `KioskModel.quitWindow` seconds quits; once, it says so.
        case twice
        /// The keyboard never quits (`--locked`): only a signal (SIGTERM from a supervisor).
        case never
    }

    /// Seconds within which a second Ctrl-C quits (`QuitKey.twice`).
    public static let quitWindow = 3.0

    /// The connection as the person is told about it.
    public enum Connection: String, Sendable {
        case connecting, connected, reconnecting, unauthorized, refused
    }

    /// Where an answer stands.
    public enum AnswerState: Sendable, Equatable {
        /// Not answered.
        case none
        /// Answered while offline: kept, it goes when the host is back.
        case kept
        /// Sent; waiting for the host's dismiss.
        case sent
    }

    /// One editable field of the open modal.
    public struct Field: Sendable, Equatable {
        /// The form field it edits (`nil`: the kiosk's own, a picker's paths).
        public var key: FieldKey?
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
        /// What is wrong with its text, shown under it; cleared when its text changes.
        public var error: String?
        /// Where the caret is, in characters.
        public var caret = 0
    }

    /// The modal on screen.
    public struct OpenModal: Sendable, Equatable {
        /// The client core's form: fields by meaning, the host's action states, the answer.
        public var form: ModalForm
        /// The editable lines.
        public var fields: [Field]
        /// Which field has focus (`fields.count`: the choices).
        public var focus = 0
        /// Text shown under the title.
        public var note: String?
        /// An address to show whole (never wrapped) and as a QR code.
        public var url: String?
        /// An address the kiosk refused to draw (not http or https).
        public var refusedURL: String?
        /// Where the answer stands.
        public var answer = AnswerState.none
        /// The choice answered, named where the answer is spoken of (`nil`: not answered by
        /// a choice of this screen, or answered before a restart of the kiosk).
        public var answerTitle: String?
        /// Whether the connection was lost while the answer waited for the host: its end is
        /// then said (taken, or not used), since nothing else on screen tells it.
        public var answerCrossedOutage = false
        /// Whether the files are being read and hashed (between Send and the first progress).
        public var reading = false
        /// The upload under way, once the files were read.
        public var upload: UploadProgress?
        /// Why the upload stopped (the host refused the files, a file changed).
        public var uploadError: String?
        /// The fields' texts as presented, to tell whether the person wrote something.
        public var initialTexts: [String] = []
        /// A composer someone wrote in: the last key was an Escape that asked first.
        public var discardArmed = false
        /// When the person last typed (the client's clock) since the host last said which
        /// actions are enabled; for `KioskModel.checkWindow` after it a disabled action is
        /// being checked, not refused.
        public var typedAt = -Double.infinity
        /// Whether the client core says the host has not been heard since the typed values
        /// went (`ModalForm.checking`, with a host that offers the heartbeat).
        public var hostChecking = false
        /// A sign-in on another device where Enter was pressed: its hint says where to sign in.
        public var enterExplained = false

        /// The modal's id.
        public var id: String { form.id }
        /// What the host sent.
        public var modal: ModalDescription { form.modal }
        /// The choices, with the host's latest states.
        public var choices: [ModalForm.Choice] { form.choices }
        /// Whether an answer is on its way or kept.
        public var answered: Bool { answer != .none }
        /// Whether the host refused the files themselves (a kind the picker does not take,
        /// more bytes or files than it takes): the same files would only be refused again, so
        /// the kiosk offers other files and Cancel, no retry (as the page does).
        public var uploadRefusedForGood: Bool {
            guard let error = uploadError else { return false }
            return ["accepted here", "add up to more than", "past the selection limit"].contains { error.contains($0) }
        }
        /// Whether the files are on their way (read, sending, or waiting for a reconnect).
        public var uploading: Bool { reading || (upload != nil && uploadError == nil && !answered) }

        /// The choice Enter picks: the preferred one if enabled (a disabled preferred one
        /// leaves no default), else the first enabled one.
        public var defaultChoice: Int? {
            if let preferred = choices.firstIndex(where: { $0.preferred }) {
                return choices[preferred].enabled ? preferred : nil
            }
            // A sign-in on another device is done there: Enter here must not cancel it.
            if case .webAuthentication = modal { return choices.firstIndex { $0.enabled && $0.style != .cancel } }
            return choices.firstIndex { $0.enabled }
        }

        /// Why Escape does nothing here: an alert or sheet without an enabled cancel action
        /// (a group approval) stays. `nil`: Escape cancels.
        public var escapeRefusal: String? {
            switch modal {
            case .alert, .actionSheet:
                guard let cancel = choices.firstIndex(where: { $0.style == .cancel }) else {
                    // A rule the host stated (the requester's copy of an approval) says more.
                    if let explanation = choices.first(where: { !$0.enabled && $0.explanation != nil })?.explanation {
                        return KioskModel.clean(explanation)
                    }
                    return "Please choose one of the options."
                }
                return choices[cancel].enabled ? nil : "Cancel is not available right now."
            default:
                return nil
            }
        }

        /// Whether Escape only asks first: a composer someone wrote in, not asked yet.
        public var escapeAsksFirst: Bool {
            switch modal {
            case .mailComposer, .messageComposer: !discardArmed && fields.map(\.text) != initialTexts
            default: false
            }
        }
    }

    /// The most notices kept.
    public static let noticeLimit = 6
    /// Seconds a notice stays in the list after it last came: an idle kiosk's screen is read
    /// by every later passer-by, for whom "The host restarted" of an hour ago is untrue.
    public static let noticeLifetime = 600.0
    /// Seconds after a screen changed by itself during which a key that would act is
    /// dropped (it was meant for the screen that went).
    public static let lateKeyWindow = 0.5
    /// Seconds after typing during which a disabled action is said to be checked by the host.
    public static let checkWindow = 1.0
    /// Seconds after the person's own tap or answer during which screen changes are theirs.
    static let ownChangeWindow = 3.0
    /// Seconds words said on top (a restart, a late key) and a fresh notice stay there before
    /// they go to the notices.
    public static let bannerLifetime = 20.0
    /// Seconds a control tap waits for the host before the kiosk says it got no answer; the
    /// heartbeat gives a silent host up before (`activeSeconds + timeoutSeconds`, 9 s).
    public static let tapWaitLimit = 12.0
    /// Seconds a notice that quotes what a person typed (a composer's text that was not sent)
    /// stays readable, by default, before the text is cleared from the screen.
    public static let defaultTypedTextLifetime = 120.0
    /// Seconds a notice that quotes what a person typed stays readable (`--forget-typed-after`).
    public var typedTextLifetime = KioskModel.defaultTypedTextLifetime
    /// Seconds a control tapped while the host was away stays kept, by default: past it the
    /// tap is dropped, and said so, rather than open a dialog for whoever stands there later.
    public static let defaultKeptTapLifetime = 60.0
    /// Seconds a tap kept while the host is away waits for it (`--keep-taps-for`).
    public var keptTapLifetime = KioskModel.defaultKeptTapLifetime

    /// The controls.
    public internal(set) var controls: [ControlItem] = []
    /// The latest notices, newest last (errors are kept longest).
    public internal(set) var notices: [Notice] = []
    /// The connection state.
    public internal(set) var connection: Connection = .connecting
    /// The connection in words when it is not up ("Cannot reach ...: why. Next try in 2 s.").
    public internal(set) var connectionDetail: String?
    /// While waiting to reconnect: when the next attempt starts, and the state that said so
    /// (the countdown is redrawn as it runs, and says "trying again now" once it is due).
    var retry: (due: Double, attempt: Int, why: Disconnection)?
    /// Modals presented and not ended, in order; the first is on screen.
    public internal(set) var modals: [OpenModal] = []
    /// Something the person must read first; cleared by the next key (it stays a notice).
    public internal(set) var banner: String?
    /// The dialog the words on top are about (a rule, a refusal, a choice kept), with those
    /// words: they go when that dialog goes.
    var dialogHint: (id: String, text: String)?
    /// What the banner is kept as once cleared, stamped when it was said.
    var bannerNotice: (level: StatusLevel, text: String, time: String)?
    /// When the banner kept as a notice was said (the client's clock).
    var bannerSince = -Double.infinity
    /// The serial of the notice shown on the top line (the newest, for `bannerLifetime`
    /// unless a newer one replaces it); the Notices list leaves it out meanwhile.
    public internal(set) var freshSerial: Int?
    /// When the fresh notice came (the client's clock).
    var freshSince = -Double.infinity
    /// A control tapped while connected that the host has not answered yet (nothing heard
    /// from it since): its title, when, and the words on top that say it waits.
    struct WaitingTap: Sendable, Equatable {
        var title: String
        var since: Double
        var words: String
    }
    var waitingTap: WaitingTap?
    /// A tap whose wait ended with the connection: a dialog that opens just after the host
    /// is back most likely comes from it, read late by the host (a stalled host read a tap
    /// 47 s after it was made, and its sheet opened with no word: issue 32's last cold trial).
    var lostTap: WaitingTap?
    /// When the connection was last welcomed (the model's clock).
    var connectedAt = -Double.infinity
    /// Seconds after a welcome during which a new dialog is said to come from a lost tap.
    static let lateTapWindow = 5.0
    /// A control tapped while the host was being reconnected to: kept, one per control, and
    /// sent once it is back (as the page keeps them); forgotten if the host refuses the kiosk.
    public struct KeptTap: Sendable, Equatable {
        /// The control's id.
        public var id: String
        /// Its title, as shown.
        public var title: String
        /// When it was tapped (the model's clock, seconds).
        public var at: Double
    }
    /// The taps kept while reconnecting, in the order they were made.
    public internal(set) var keptTaps: [KeptTap] = []

    /// The kiosk's name.
    public let name: String
    /// The group, if any.
    public let group: String?
    /// The host's address as shown (no query).
    public let address: String

    var welcomed = false
    var noticeSerial = 0
    /// Titles of modals ended by a shutdown or a lost session, said with the session's fate.
    var lost: [String] = []
    /// Modals the person left (Escape while waiting); a re-sent `present` does not bring them back.
    var abandoned: Set<String> = []
    /// The screen on show (a modal's id, or "" for the controls) and when it changed by itself.
    var screen = ""
    var changedByItself = -Double.infinity
    /// What Ctrl-C does.
    public var quitKey = QuitKey.twice
    /// When Ctrl-C was last pressed (the client's clock).
    var interruptedAt = -Double.infinity
    var lastOwnAction = -Double.infinity
    /// The screen the person's last own action was on (a tap: the controls, ""); a dialog
    /// that goes is theirs only if they acted on it, never for a key it refused.
    var ownActionScreen = ""
    /// A choice pressed while the host was still judging what had just been typed.
    struct PendingChoice: Sendable, Equatable {
        var id: String
        var index: Int
        var until: Double
    }
    var pendingChoice: PendingChoice?
    /// The client's clock at the last key, update or `tick`: what the screen is drawn for.
    public internal(set) var seenAt = -Double.infinity

    /// Whether a disabled choice of `open` is still being checked by the host (the person
    /// typed since the host last said which actions are enabled, less than `checkWindow` ago).
    public func checking(_ open: OpenModal) -> Bool {
        open.hostChecking || seenAt - open.typedAt < Self.checkWindow
    }
    /// The clock of the last update (seconds), for the notices' times.
    var clock: @Sendable () -> String

    /// Creates the model.
    /// - Parameters:
    ///   - name: The kiosk's name.
    ///   - group: Its group.
    ///   - address: The host's address, as the person may be told it.
    ///   - clock: The time of day as shown beside a repeated notice.
    ///   - typedTextLifetime: Seconds a notice quoting what a person typed stays readable.
    ///   - keptTapLifetime: Seconds a tap kept while the host is away waits for it.
    public init(
        name: String, group: String?, address: String = "the host", clock: @escaping @Sendable () -> String = { "" },
        typedTextLifetime: Double = KioskModel.defaultTypedTextLifetime,
        keptTapLifetime: Double = KioskModel.defaultKeptTapLifetime
    ) {
        self.typedTextLifetime = max(0, typedTextLifetime)
        self.keptTapLifetime = max(0, keptTapLifetime)
        self.name = name
        self.group = group
        self.address = address
        self.clock = clock
    }

    /// The modal on screen, if any.
    public var current: OpenModal? { modals.first }

    /// The serial of the newest notice (0 before any).
    public var lastNoticeSerial: Int { noticeSerial }

    /// Applies an update of the client core.
    /// - Parameters:
    ///   - update: The update.
    ///   - now: Seconds on a monotonic clock (to tell a late key).
    public mutating func apply(_ update: ClientUpdate, now: Double = 0) {
        tick(now: now)
        defer { screenChanged(now: now) }
        hostHeard(update)
        switch update {
        case .connection(let state): connectionChanged(state)
        case .controls(let items): controls = items
        case .present(let form, let answered):
            guard !abandoned.contains(form.id), !modals.contains(where: { $0.id == form.id }) else { return }
            clearBanner()
            var open = Self.open(form)
            if answered { open.answer = connection == .connected ? .sent : .kept }
            modals.append(open)
            if let lost = lostTap {
                lostTap = nil
                if !answered, seenAt - connectedAt < Self.lateTapWindow {
                    // "Tap it again if nothing opens" is untrue once it opened (the second
                    // cold trial read it beside the dialog).
                    let lostWords = "\u{201C}\(lost.title)\u{201D} got no answer:"
                    notices.removeAll { $0.text.hasPrefix(lostWords) }
                    if banner?.hasPrefix(lostWords) == true { banner = nil }
                    let ago = Self.duration(max(1, seenAt - lost.since))
                    say(
                        .info,
                        "This opened from the tap on \u{201C}\(lost.title)\u{201D} \(ago) ago: the host read it only "
                            + "once it was back. Cancel it if it is not yours.")
                }
            }
        case .represent(let form), .update(let form):
            guard let index = modals.firstIndex(where: { $0.id == form.id }) else { return }
            modals[index].form.setActionStates(form.choices.map(\.enabled))
            modals[index].typedAt = -.infinity
            modals[index].hostChecking = form.checking
        case .dismiss(let id, let end): dismissed(id, end)
        case .status(let level, let text): notify(level, Self.clean(text))
        case .answerRejected(let id, let error):
            guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
            modals[index].answer = .none
            modals[index].reading = false
            modals[index].upload = nil
            say(.error, "The host did not take this answer: \(Self.clean(error.message)). Change it and choose again.")
        case .answerDropped(let id, let loss):
            _ = (id, loss)  // said with the session's fate (`sessionReplaced`) or the dismiss
        case .sessionReplaced(let loss): sessionReplaced(loss)
        case .uploadProgress(let id, let acknowledged, let total):
            guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
            modals[index].reading = false
            let names = modals[index].upload?.names ?? []
            modals[index].upload = UploadProgress(acknowledged: acknowledged, total: total, names: names)
            // Every byte held: the client core sends the result now.
            if acknowledged >= total { modals[index].answer = connection == .connected ? .sent : .kept }
        case .uploadStopped(let id, let message): uploadStopped(id, Self.clean(message))
        case .hostError(let error):
            // The refusals of chunks already on their way follow from the first, said once.
            if error.code == .uploadInvalid, modals.contains(where: { $0.uploadError != nil }) { return }
            let names = modals.first { $0.upload != nil }?.upload?.names ?? []
            notify(.error, "host: \(Self.namingFiles(Self.clean(error.message), names: names))")
        case .skipped: break
        case .overwhelmed: say(.error, Self.overwhelmed)
        case .offline(let what):
            if what.hasPrefix("tap") { say(.error, Self.notConnected) }
        }
    }

    /// What a flood the kiosk dropped is said with (it reconnects and the host says again what stands).
    static let overwhelmed = "The host sent messages too fast: the kiosk dropped them and is catching up."

    /// What a tap kept while reconnecting is said with: every one kept, and when they go.
    static func keptWords(_ taps: [KeptTap]) -> String {
        "Saved: \(quoted(taps.map(\.title))) \(taps.count == 1 ? "goes" : "go") when the host is back."
    }

    /// Titles in quotes, separated by commas.
    static func quoted(_ titles: [String]) -> String {
        titles.map { "\u{201C}\($0)\u{201D}" }.joined(separator: ", ")
    }

    static func wasOrWere(_ quoted: String) -> String { quoted.contains("\u{201D}, ") ? "were" : "was" }

    /// What a tap while offline is answered with; untrue once the host is back.
    static let notConnected = "Not connected to the host: nothing was sent. Try again when it is back."
    /// What Escape on a dialog whose answer went is answered with: it stays until the host
    /// ends it.
    static let sentCannotBeTakenBack =
        "Your answer has gone to the host and cannot be taken back: waiting for the host to confirm it."
    /// The end of what a disabled choice pressed offline is answered with; untrue once back.
    static let waitsWhileOffline = " waits for the host, which is not connected."

    mutating func connectionChanged(_ state: ConnectionState) {
        (connection, connectionDetail) = Self.words(for: state, address: address, everConnected: welcomed)
        if case .reconnecting(let attempt, let retryIn, let why) = state {
            retry = (seenAt + retryIn, attempt, why)
            for index in modals.indices where modals[index].answered { modals[index].answerCrossedOutage = true }
        } else {
            retry = nil
        }
        if connection == .refused || connection == .unauthorized, !keptTaps.isEmpty {
            // The host turned the kiosk away: what was kept for it will not go.
            let titles = Self.quoted(keptTaps.map(\.title))
            keptTaps = []
            say(.error, "\(titles) \(Self.wasOrWere(titles)) not sent: the host refused this kiosk.")
        }
        if case .connected = state { connectedAt = seenAt }
        if let waiting = waitingTap, case .reconnecting(_, _, let why) = state {
            // The tap's wait ends with the connection: said of the tap, in the connection's
            // words (a silent host: "not answering"), never as the person's fault.
            waitingTap = nil
            lostTap = waiting
            say(
                .error,
                "\u{201C}\(waiting.title)\u{201D} got no answer: \(Self.reason(why)). Nothing happened yet; "
                    + "once the host is back, tap it again if nothing opens.")
        }
        // The top line about a kept choice follows the connection.
        if let pending = pendingChoice, let open = modals.first(where: { $0.id == pending.id }),
            open.choices.indices.contains(pending.index), banner != nil
        {
            hint(Self.checkingWords(open.choices[pending.index].title, connected: connection == .connected), on: open)
        }
        guard case .connected = state else { return }
        welcomed = true
        // A choice kept while offline: the host now judges what is filled in; its window runs.
        if pendingChoice?.until == .infinity { pendingChoice?.until = seenAt + Self.checkWindow }
        // "Not connected" is wrong once connected: it goes, from the banner and the notices.
        if banner?.hasSuffix(Self.waitsWhileOffline) == true, bannerNotice == nil { banner = nil }
        if bannerNotice?.text == Self.notConnected {
            banner = nil
            bannerNotice = nil
        }
        notices.removeAll { $0.text == Self.notConnected }
        // What was kept while offline went with the welcome.
        for index in modals.indices where modals[index].answer == .kept { modals[index].answer = .sent }
    }

    mutating func dismissed(_ id: String, _ end: ModalEnd) {
        abandoned.remove(id)
        guard let ended = modals.first(where: { $0.id == id }) else { return }
        modals.removeAll { $0.id == id }
        // Words on top about this dialog (its rule, a refused key) are untrue once it went.
        if let hint = dialogHint, hint.id == id {
            if banner == hint.text { banner = nil }
            dialogHint = nil
        }
        let title = Self.title(of: ended.modal)
        let yours = ended.answerTitle.map { "Your \u{201C}\(Self.clean($0))\u{201D}" } ?? "Your answer"
        switch end {
        case .host(.superseded) where ended.answered:
            // The answer went (or was kept and went with the resume) after another screen's:
            // it was not used, and the host's words on the outcome follow (a status).
            say(
                .info,
                "\(yours) on \u{201C}\(title)\u{201D} was not used: another screen of the group answered first.")
        case .host(.timeout) where ended.answered, .host(.disposed) where ended.answered:
            say(
                .info,
                "\(yours) on \u{201C}\(title)\u{201D} was not used: the request ended before it reached the host.")
        case .host(.resolved) where ended.answered && ended.answerCrossedOutage:
            // Nothing on screen said the answer arrived: the connection went while it waited.
            say(.info, "\u{201C}\(title)\u{201D} is done: the host took your answer.")
        case .host(.shutdown) where !ended.answered:
            lost.append(title)
            banner = "The host is shutting down: \u{201C}\(title)\u{201D} was cancelled."
        case .lost(.restarted), .lost(.expired):
            lost.append(title)
        case .lost(.ended) where ended.answered:
            // Resumed without it, after the answer went (or was kept and went with the
            // resume): the host took the answer, and its own words follow (a status).
            say(.info, "\u{201C}\(title)\u{201D} is done: the host took your answer.")
        case .lost(.ended):
            // Either side may have been cut off: only what is known is said.
            say(.info, "\u{201C}\(title)\u{201D} ended while the host could not be reached.")
        default: break
        }
        // A kept answer never left this screen: what it carried was not sent either.
        if ended.answer != .sent, let kept = Self.unsentText(of: ended) {
            notify(
                .error, "What you wrote in \u{201C}\(title)\u{201D} was not sent: \(kept)",
                forget: (
                    after: typedTextLifetime,
                    words: "What was written in \u{201C}\(title)\u{201D} was not sent; cleared from this screen after "
                        + "\(Self.duration(typedTextLifetime))."
                ))
        }
    }

    mutating func sessionReplaced(_ loss: SessionLoss) {
        let titles = lost.map { "\u{201C}\($0)\u{201D}" }.joined(separator: ", ")
        lost = []
        abandoned = []
        let why = loss == .expired ? "The session expired while the host could not be reached" : "The host restarted"
        if titles.isEmpty {
            say(.info, "\(why).")
        } else {
            banner = "\(why): \(titles) was cancelled. Start again from the controls."
            bannerNotice = (.error, "\(why): \(titles) was cancelled.", clock())
            bannerSince = seenAt
        }
    }

    /// Tracks what is on screen: a dialog that went without the person (another screen
    /// answered it, the host ended it) opens the late-key window.
    mutating func screenChanged(now: Double) {
        let shown = modals.first?.id ?? ""
        guard shown != screen else { return }
        // Only a dialog that went away counts (its keys would land on what is under it); a
        // dialog that arrives is answered by what is pressed for it.
        let went = !screen.isEmpty && !modals.contains { $0.id == screen }
        let theirs = now - lastOwnAction <= Self.ownChangeWindow && ownActionScreen == screen
        screen = shown
        if went, !theirs, connection == .connected { changedByItself = now }
    }
}
