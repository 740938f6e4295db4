import RemoteModalClient
import RemoteModalProtocol

/// A test client that answers by meaning, on `RemoteModalClient`:
///
/// ```swift
/// try await robot.tap("signIn")
/// try await robot.alert(titled: "Sign in").fill(.email, "ann@example.com").fill(.password, "pw").choose("Sign In")
/// #expect(try await robot.status().text == "Signed in as ann@example.com")
/// ```
///
/// Every wait is bounded by `timeout` and fails with `RobotError` saying what it waited for
/// and what it saw (the connection, the dialogs, the controls, the last updates).
public actor ModalRobot {
    enum Signal: Sendable {
        case update(ClientUpdate)
        case timeout(Int)
        case finished
    }

    /// The client the robot drives.
    public nonisolated let client: RemoteModalClient
    /// The longest any wait lasts.
    public let timeout: Duration

    private let signals: AsyncStream<Signal>
    private let continuation: AsyncStream<Signal>.Continuation
    private var iterator: AsyncStream<Signal>.Iterator
    private var waits = 0
    private var finished = false

    /// The connection as last reported.
    public private(set) var connection: ConnectionState?
    /// The host's controls.
    public private(set) var controls: [ControlItem] = []
    private var forms: [String: ModalForm] = [:]
    private var order: [String] = []
    private var ended: [String: ModalEnd] = [:]
    private var rejected: [String: ProtocolError] = [:]
    private var stopped: [String: String] = [:]
    private var statuses: [(level: StatusLevel, text: String)] = []
    private var recent: [String] = []

    /// The most statuses kept unread, and the most ended modals remembered.
    public static let memory = 64

    /// Creates a robot on a client (start the client yourself, before or after).
    /// - Parameters:
    ///   - client: The client.
    ///   - timeout: The longest any wait lasts.
    public init(client: RemoteModalClient, timeout: Duration = .seconds(10)) {
        self.client = client
        self.timeout = timeout
        let (signals, continuation) = AsyncStream.makeStream(of: Signal.self)
        self.signals = signals
        self.continuation = continuation
        iterator = signals.makeAsyncIterator()
        Task { [events = client.events] in
            for await update in events { continuation.yield(.update(update)) }
            continuation.yield(.finished)
        }
    }

    /// Waits for a welcomed connection.
    /// - Throws: `RobotError` after `timeout`.
    public func connected() async throws {
        try await wait("a welcomed connection") { robot in
            if case .connected? = robot.connection { return () }
            return nil
        }
    }

    /// Taps a control once it is there and enabled.
    /// - Parameter control: The control's id.
    /// - Throws: `RobotError` after `timeout`.
    public func tap(_ control: String) async throws {
        try await connected()
        try await wait("control '\(control)' enabled") { robot in
            robot.controls.first { $0.id == control && $0.enabled }.map { _ in () }
        }
        client.tap(control)
    }

    /// Waits for an alert with this title.
    /// - Parameter title: The title.
    /// - Returns: The dialog.
    /// - Throws: `RobotError` after `timeout`.
    public func alert(titled title: String) async throws -> RobotDialog {
        try await dialog("an alert titled \u{201C}\(title)\u{201D}") { $0.kind == "alert" && $0.title == title }
    }

    /// Waits for an action sheet with this title.
    /// - Parameter title: The title.
    /// - Returns: The dialog.
    /// - Throws: `RobotError` after `timeout`.
    public func sheet(titled title: String) async throws -> RobotDialog {
        try await dialog("an action sheet titled \u{201C}\(title)\u{201D}") {
            $0.kind == "actionSheet" && $0.title == title
        }
    }

    /// Waits for a photo or media picker.
    /// - Returns: The dialog.
    /// - Throws: `RobotError` after `timeout`.
    public func picker() async throws -> RobotDialog {
        try await dialog("a picker") { $0.kind == "photoPicker" || $0.kind == "mediaPicker" }
    }

    /// Waits for a mail or message composer.
    /// - Returns: The dialog.
    /// - Throws: `RobotError` after `timeout`.
    public func composer() async throws -> RobotDialog {
        try await dialog("a composer") { $0.kind == "mailComposer" || $0.kind == "messageComposer" }
    }

    /// Waits for a web authentication.
    /// - Returns: The dialog.
    /// - Throws: `RobotError` after `timeout`.
    public func webAuthentication() async throws -> RobotDialog {
        try await dialog("a web authentication") { $0.kind == "webAuthentication" }
    }

    /// Waits for a modal of the custom kind `name` (advertise `custom:NAME` in the client's
    /// capabilities, or the host never presents one).
    /// - Parameter name: The custom kind's name.
    /// - Returns: The dialog.
    /// - Throws: `RobotError` after `timeout`.
    public func custom(_ name: String) async throws -> RobotDialog {
        try await dialog("a custom modal \u{201C}\(name)\u{201D}") { $0.kind == "custom" && $0.title == name }
    }

    /// Waits for a shown modal that `matches`.
    /// - Parameters:
    ///   - what: The modal in words, for the failure message.
    ///   - matches: The test.
    /// - Returns: The dialog.
    /// - Throws: `RobotError` after `timeout`.
    public func dialog(_ what: String, where matches: @escaping @Sendable (ModalForm) -> Bool) async throws
        -> RobotDialog
    {
        let id = try await wait(what) { robot in robot.order.first { robot.forms[$0].map(matches) ?? false } }
        return RobotDialog(robot: self, id: id)
    }

    /// The latest status: the newest of those come since the last read (every one up to it
    /// is read then), or, when none came since, the next one. A test that answers a dialog and
    /// then asks `status()` gets what the host said last, not an older status left unread.
    /// - Parameter text: Only a status containing this text counts, if given (the newest such).
    /// - Returns: The status.
    /// - Throws: `RobotError` after `timeout`.
    @discardableResult
    public func status(containing text: String? = nil) async throws -> (level: StatusLevel, text: String) {
        try await wait(text.map { "a status containing \u{201C}\($0)\u{201D}" } ?? "a status") { robot in
            guard let index = robot.statuses.lastIndex(where: { text == nil || $0.text.contains(text!) }) else {
                return nil
            }
            let status = robot.statuses[index]
            robot.statuses.removeFirst(index + 1)
            return status
        }
    }

    /// The form of a shown modal, as the robot filled it.
    /// - Parameter id: The modal's id.
    /// - Returns: The form, or `nil` once it ended.
    public func form(_ id: String) -> ModalForm? { forms[id] }

    func fill(_ id: String, _ key: FieldKey, _ text: String) throws {
        guard var form = forms[id] else { throw RobotError("fill \(key): the modal \(id) is no longer shown", seen) }
        try form.fill(key, text)
        forms[id] = form
        if form.kind == "alert" { client.type(id, textFields: form.textFields) }
    }

    func choose(_ id: String, _ choice: ChoiceKey) async throws {
        let form = try await wait("\(choice) enabled") { robot -> ModalForm? in
            guard let form = robot.forms[id] else { return nil }
            return form.isEnabled(choice) ? form : nil
        }
        try client.answer(form, choosing: choice)
        try await settled(id, "the answer \(choice)")
    }

    func pick(_ id: String, _ files: [any ClientFile]) async throws {
        client.pick(id, files: files)
        try await settled(id, "the upload of \(files.count) file(s)")
    }

    func answer(_ id: String, custom value: JSONValue) async throws {
        guard let form = forms[id] else { throw RobotError("answer: the modal \(id) is no longer shown", seen) }
        guard case .custom = form.modal else {
            throw RobotError("answer: \(id) is \(form.kind), not a custom kind (choose or pick instead)", seen)
        }
        client.answer(id, .answer(.custom(value)))
        try await settled(id, "the custom answer")
    }

    func signIn(_ id: String, maxBodyBytes: Int) async throws -> WebSignIn.Outcome {
        guard let form = forms[id], case .webAuthentication(let url, let callbackURL, let scheme, _) = form.modal else {
            throw RobotError("sign in: \(id) is not a web authentication", seen)
        }
        let outcome = try await WebSignIn.follow(url, maxBodyBytes: maxBodyBytes)
        switch outcome {
        case .callback(let reached):
            guard let scheme, reached.lowercased().hasPrefix(scheme.lowercased() + ":") else {
                throw RobotError("sign in: \(id) led to \(reached.prefix(80)), not its callback scheme", seen)
            }
            client.answer(id, .answer(.callbackURL(reached)))
            try await settled(id, "the callback address")
        case .page(_, let status):
            // A host-served callback: the host resolves the modal itself and dismisses it.
            guard callbackURL != nil else {
                throw RobotError("sign in: \(id) ended on a page (\(status)), not on its callback scheme", seen)
            }
            try await settled(id, "the host's callback")
        }
        return outcome
    }

    func cancel(_ id: String) async throws {
        guard let reply = forms[id]?.cancelReply else { throw RobotError("cancel: no way out of \(id)", seen) }
        client.answer(id, reply)
        try await settled(id, "the cancel")
    }

    /// Waits until the modal ended, or fails with the host's refusal.
    private func settled(_ id: String, _ what: String) async throws {
        rejected[id] = nil
        stopped[id] = nil
        let outcome = try await wait("the dismiss after \(what)") { robot -> Result<ModalEnd, RobotError>? in
            if let end = robot.ended[id] { return .success(end) }
            if let error = robot.rejected[id] { return .failure(RobotError("the host refused \(what): \(error)", [])) }
            if let message = robot.stopped[id] { return .failure(RobotError("the upload stopped: \(message)", [])) }
            return nil
        }
        _ = try outcome.get()
    }

    /// Waits until `check` returns a value, applying the client's updates as they come.
    private func wait<T: Sendable>(_ what: String, _ check: @Sendable (isolated ModalRobot) -> T?) async throws -> T {
        if let value = check(self) { return value }
        waits += 1
        let mine = waits
        let timer = Task { [continuation, timeout] in
            try? await Task.sleep(for: timeout)
            continuation.yield(.timeout(mine))
        }
        defer { timer.cancel() }
        var iterator = self.iterator
        defer { self.iterator = iterator }
        while !finished, let signal = await iterator.next(isolation: self) {
            switch signal {
            case .update(let update):
                apply(update)
                if let value = check(self) { return value }
            case .timeout(let token):
                if token == mine { throw RobotError("timed out after \(timeout) waiting for \(what)", seen) }
            case .finished:
                finished = true
            }
        }
        throw RobotError("the client stopped while waiting for \(what)", seen)
    }

    private var seen: [String] {
        [
            "connection: \(connection.map { "\($0)" } ?? "none yet")",
            "dialogs: "
                + (order.compactMap { forms[$0] }.map { "\($0.kind) \u{201C}\($0.title)\u{201D}" }
                    .joined(separator: ", ")),
            "controls: " + controls.map { "\($0.id)\($0.enabled ? "" : " (disabled)")" }.joined(separator: ", "),
        ] + recent.map { "update: \($0)" }
    }

    private func apply(_ update: ClientUpdate) {
        recent.append(String("\(update)".prefix(200)))
        if recent.count > 8 { recent.removeFirst() }
        switch update {
        case .connection(let state):
            connection = state
        case .controls(let items):
            controls = items
        case .present(let form, _):
            forms[form.id] = form
            order.append(form.id)
            ended[form.id] = nil
        case .represent(let form), .update(let form):
            guard var mine = forms[form.id] else { return }
            mine.setActionStates(form.choices.map(\.enabled))
            forms[form.id] = mine
        case .dismiss(let id, let end):
            forms[id] = nil
            order.removeAll { $0 == id }
            ended[id] = end
            if ended.count > Self.memory, let any = ended.keys.first(where: { $0 != id }) { ended[any] = nil }
        case .status(let level, let text):
            statuses.append((level, text))
            if statuses.count > Self.memory { statuses.removeFirst() }
        case .answerRejected(let id, let error):
            rejected[id] = error
        case .uploadStopped(let id, let message):
            stopped[id] = message
        case .answerDropped, .sessionReplaced, .uploadProgress, .hostError, .skipped, .offline, .overwhelmed:
            break
        }
    }
}

/// One dialog the robot found: fill it by meaning, then choose, pick or cancel.
public struct RobotDialog: Sendable {
    /// The robot.
    public let robot: ModalRobot
    /// The modal's id.
    public let id: String

    /// Fills a field (and reports an alert's text fields to the host, which may enable actions).
    /// - Parameters:
    ///   - key: The field's meaning.
    ///   - text: The text.
    /// - Returns: The dialog, to chain.
    /// - Throws: `FormError` when there is no such field, `RobotError` when the modal ended.
    @discardableResult
    public func fill(_ key: FieldKey, _ text: String) async throws -> RobotDialog {
        try await robot.fill(id, key, text)
        return self
    }

    /// Chooses once the choice is enabled, then waits for the modal's dismiss.
    /// - Parameter choice: The choice's title or role.
    /// - Throws: `RobotError` (timed out, refused by the host), `FormError` (a field to fix).
    public func choose(_ choice: ChoiceKey) async throws { try await robot.choose(id, choice) }

    /// Picks files for a picker and waits until they are up and the picker dismissed.
    /// - Parameter files: The files.
    /// - Throws: `RobotError` (timed out, the upload stopped).
    public func pick(_ files: [any ClientFile]) async throws { try await robot.pick(id, files) }

    /// Answers a custom kind with this value, then waits for the dismiss.
    /// - Parameter value: The `result` value (the custom kind's own format).
    /// - Throws: `RobotError` when the modal is not a custom kind, ended, or was refused.
    public func answer(_ value: JSONValue) async throws { try await robot.answer(id, custom: value) }

    /// Signs in to a web authentication as a person's phone would (`WebSignIn.follow`): a
    /// native callback scheme is answered with the address reached; a host-served callback
    /// is fetched, and the host dismisses the modal. Waits for the dismiss either way.
    /// - Parameter maxBodyBytes: The most bytes of one HTTP answer's body read
    ///   (`WebSignIn.defaultMaxBodyBytes`, 1 MiB, by default); a longer body is a failure.
    /// - Returns: Where following the address ended.
    /// - Throws: `WebSignIn.Failure` (the address, a body past `maxBodyBytes`), `RobotError`
    ///   (the wrong end, no dismiss).
    @discardableResult
    public func signIn(maxBodyBytes: Int = WebSignIn.defaultMaxBodyBytes) async throws -> WebSignIn.Outcome {
        try await robot.signIn(id, maxBodyBytes: maxBodyBytes)
    }

    /// Leaves the dialog the way its cancel does, and waits for the dismiss.
    /// - Throws: `RobotError` when it has no way out or the dismiss does not come.
    public func cancel() async throws { try await robot.cancel(id) }

    /// The form as filled so far.
    public var form: ModalForm? { get async { await robot.form(id) } }
}

/// A robot's wait that failed: what it waited for and what it saw.
public struct RobotError: Error, CustomStringConvertible {
    /// What went wrong.
    public let message: String
    /// What the robot saw (connection, dialogs, controls, the last updates).
    public let seen: [String]

    init(_ message: String, _ seen: [String]) {
        self.message = message
        self.seen = seen
    }

    /// The message and what was seen, one per line.
    public var description: String { ([message] + seen.map { "  " + $0 }).joined(separator: "\n") }
}
