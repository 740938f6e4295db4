import RemoteModalAction
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive

/// The root flow of a demo session: its controls, each bound to an `Action` whose work
/// runs a child coordinator.
///
/// Who holds what: the session holds this coordinator (`Session.coordinate(to:)`) until the
/// session ends; each control holds its action (made at its first tap) strongly until the
/// session ends; the actions and the closures that make them
/// capture `[unowned self]`, as upstream's do, which is safe because the session ends the
/// controls' bindings before anything could tap them after the coordinator is released.
final class DemoCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    private let login: OpenIDLogin?
    private let photoMaxBytes: Int
    private let options: Bool
    private let draftLifetime: Double

    init(
        session: Session, login: OpenIDLogin?, photoMaxBytes: Int, options: Bool = false,
        draftLifetime: Double = DemoFlows.defaultDraftLifetime
    ) {
        self.login = login
        self.photoMaxBytes = photoMaxBytes
        self.options = options
        self.draftLifetime = draftLifetime
        super.init(session: session)
    }

    override func start() -> Observable<Void> {
        let session = self.session
        // Each action is made at its control's first tap (`bind(lazily:)`): an idle session
        // holds six controls and no actions (docs/benchmarks.md, issue 31).
        session.control("signIn", title: "Sign in").bind(lazily: { [unowned self] in
            ButtonAction { [unowned self] in self.coordinate(to: SignInCoordinator(session: session)) }
        })
        session.control("contact", title: "Contact us").bind(lazily: { [unowned self] in
            // The saved draft lives with the action, made at the first tap and kept for the session.
            let drafts = ContactDrafts(lifetime: self.draftLifetime)
            return ButtonAction { [unowned self] in
                self.coordinate(to: ContactCoordinator(session: session, drafts: drafts))
            }
        })
        if let login {
            session.control("login", title: "Log in").bind(lazily: { [unowned self] in
                ButtonAction { [unowned self] in self.coordinate(to: LoginCoordinator(session: session, login: login)) }
            })
        }
        session.control("country", title: "Choose country").bind(lazily: { [unowned self] in
            ButtonAction { [unowned self] in
                self.coordinate(to: ChooseCountryCoordinator(session: session)).map { name in
                    session.notify(
                        name.map { "Country: \($0)" } ?? "Country choice cancelled",
                        level: name == nil ? .info : .success)
                }
            }
        })
        session.control("photo", title: "Send photos").bind(lazily: { [unowned self] in
            ButtonAction { [unowned self] in
                self.coordinate(to: PhotoCoordinator(session: session, maxBytes: self.photoMaxBytes))
            }
        })
        session.control("approve", title: "Request approval").bind(lazily: { [unowned self] in
            ButtonAction { [unowned self] in self.coordinate(to: ApprovalCoordinator(session: session)) }
        })
        if options {
            session.control("options", title: "Optional fields").bind(lazily: { [unowned self] in
                ButtonAction { [unowned self] in self.coordinate(to: OptionsCoordinator(session: session)) }
            })
        }
        // Runs until the session ends.
        return .never()
    }
}

/// `signIn`: e-mail and password; Sign In only while the e-mail has an `@` and the
/// password is not empty, a rule the clients show in words while Sign In is disabled.
final class SignInCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    override func start() -> Observable<Void> {
        let session = self.session
        return RemoteModal.alert(
            String?.self, presenter: presenter, title: "Sign in", message: "Please sign in",
            textFields: [.email(placeholder: "e-mail"), .password(placeholder: "password")],
            actions: [
                .cancel(title: "Cancel", mapTo: nil),
                DialogAction.default(title: "Sign In", map: { $0[0] })
                    // NB: the byte, not `contains("@")`, which is Foundation's substring
                    // search through an NSString (an allocation at every keystroke's rule).
                    .enabledIf(explanation: "Enter an e-mail address with an @ and a password") { fields in
                        fields[0].utf8.contains(UInt8(ascii: "@")) && !fields[1].isEmpty
                    }
                    .preferred(),
            ]
        )
        .map { email in
            if let email {
                session.notify("Signed in as \(email)", level: .success)
            } else {
                session.notify("Sign in cancelled", level: .info)
            }
        }
        // Closing the alert without a button (Escape: `failure` `cancelled`) is a cancel too.
        .catch { error in reportFailure(error, "Sign in", to: [session]) }
    }
}

/// `country`: the child flow of the coordinator example; its result is the country name
/// or `nil`.
final class ChooseCountryCoordinator: SessionCoordinator<String?>, @unchecked Sendable {
    override func start() -> Observable<String?> {
        RemoteModal.actionSheet(
            String?.self, presenter: presenter, source: "country", title: "Choose a country",
            actions: [
                .default(title: "France", mapTo: "France"), .default(title: "Japan", mapTo: "Japan"),
                .default(title: "Brazil", mapTo: "Brazil"), .cancel(title: "Cancel", mapTo: nil),
            ]
        )
        .catch { [session] error in
            // Closing the sheet without a choice (Escape) is the Cancel choice: `Country choice cancelled`, in the words of the other flows (`Sign in cancelled`).
            if case RemoteModalError.cancelled = error { return .just(nil) }
            return reportFailure(error, "Choose country", to: [session])
        }
    }
}

/// `approve`: one alert on every connected session of the group at once (on every host of
/// a cluster); the first answer wins and every session of the group hears who decided. The
/// requester sees its own request with Approve disabled and the words why (it waits for
/// another screen); its Reject withdraws the request, told to everyone as withdrawn.
final class ApprovalCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    override func start() -> Observable<Void> {
        let session = self.session
        // Every connected session of the group is asked, the requester too (docs/protocol.md's
        // demo table), but the requester's copy has Approve disabled: it can only withdraw
        // its request (Reject), never approve it itself. Without a group it is alone for
        // sure, and told how to get company.
        let hint =
            session.client.group == nil
            ? ". Nobody else can approve it: open the page twice with ?group=NAME (kiosks: --group)." : ""
        let requesterID = session.id
        let requesterName = session.client.name
        // Who else holds a copy, for the words when the requester's session ends (its retention
        // ran out: its screen left for good). Read now: once the session is gone the host no
        // longer knows its group. At a shutdown the alert has already failed (and this watch is
        // disposed) before sessions end, so nobody is told a screen left.
        let others = session.groupSessions.filter { $0.id != requesterID }
        let requesterLeft = session.ended.subscribe(onNext: { _ in
            for member in others {
                member.notify("Approval request ended: \(requesterName)'s screen left", level: .info)
            }
        })
        return RemoteModal.alert(
            presenter: Presenter.sameGroup(as: session).disablingActions(
                [0], for: session,
                explanation: "Waiting for another screen of the group to approve. Reject withdraws your request."),
            title: "Approve request?", message: "\(session.client.name) asks for approval" + hint,
            actions: [
                DialogAction.default(title: "Approve", mapContext: { "Approved by \($0.session.client.name)" })
                    .preferred(),
                .destructive(
                    title: "Reject",
                    mapContext: { context in
                        // The requester's own Reject is a withdrawal, not someone's refusal.
                        context.session.id == requesterID
                            ? "Request withdrawn by \(context.session.client.name)"
                            : "Rejected by \(context.session.client.name)"
                    }),
            ]
        )
        .map { text in
            // Everyone asked is told, even while its screen is away (a cut): the host keeps the
            // status for its resume. `groupSessions` lists connected screens only: the second
            // cold trial's requester, back after a cut, was told only "ended", and the third's
            // approver, cut off while another screen rejected, was never told the outcome.
            var told = session.groupSessions
            for member in others + [session] where !told.contains(where: { $0.id == member.id }) {
                told.append(member)
            }
            for member in told { member.notify(text, level: .info) }
        }
        .catch { error in
            switch error {
            case RemoteModalError.failed, RemoteModalError.denied, RemoteModalError.unsupported:
                // One member's client ended it (`failure` `failed`/`denied`/`unsupported`):
                // the group hears it as it hears an answer, in the host's words. The
                // client's own message is not repeated: it was any text one member chose,
                // shown to another as if the host said it.
                for member in session.groupSessions {
                    member.notify("Approval request ended: a screen could not show it", level: .error)
                }
                return .empty()
            case RemoteModalError.cancelled:
                // Closed without an answer (Escape on one copy ends the request for all).
                return reportFailure(error, "Approval", to: session.groupSessions)
            default:
                return reportFailure(error, "Approval", to: [session])
            }
        }
        .do(onDispose: { requesterLeft.dispose() })
    }
}

/// Whether a flow's failure is worth a status: not the host shutting down (each client shows
/// its dismissed modal's own shutdown notice and reconnects; a status on top of it, as the
/// connection closes, was a second message about the same event).
func isWorthReporting(_ error: any Error) -> Bool {
    if case RemoteModalError.hostShutdown = error { return false }
    return true
}

/// The status a demo flow sends when it fails, then ends the flow: nothing for a host
/// shutdown; `WHAT cancelled` (info) when the person closed the modal without a button
/// (Escape: `failure` `cancelled`), which is a change of mind, not an error; `WHAT is not
/// supported on this client` or `WHAT failed: REASON` (error) otherwise, cut to 240
/// characters (REASON may quote a client's message).
func reportFailure<Element>(
    _ error: any Error, _ what: String, to sessions: [Session]
) -> Observable<Element> {
    guard isWorthReporting(error) else { return .empty() }
    let text: String
    let level: StatusLevel
    switch error {
    case RemoteModalError.cancelled: (text, level) = ("\(what) cancelled", .info)
    case RemoteModalError.unsupported: (text, level) = ("\(what) is not supported on this client", .error)
    default: (text, level) = ("\(what) failed: \(error)", .error)
    }
    // REASON may quote a client's `failure` message: the whole text is cut to 240 characters.
    let shown = text.count > 240 ? String(text.prefix(240)) + "…" : text
    for session in sessions { session.notify(shown, level: level) }
    return .empty()
}
