import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

@Suite("Remote alerts and action sheets: the RxModal semantics over the wire")
struct AlertTests {
    func yesNo(_ session: Session, timeout: Duration? = nil) -> Observable<Bool> {
        RemoteModal.alert(
            presenter: .session(session), title: "Continue?",
            actions: [.cancel(title: "No", mapTo: false), .default(title: "Yes", mapTo: true)], timeout: timeout)
    }

    @Test func presentsOnSubscribeNotBefore() {
        let harness = HostHarness()
        let client = harness.connect()
        let alert = yesNo(harness.session(of: client))
        harness.settle()
        #expect(client.presents.isEmpty)
        let subscription = alert.subscribe()
        harness.settle()
        #expect(client.presents.count == 1)
        #expect(client.presents.first?.modal.title == "Continue?")
        subscription.dispose()
    }

    @Test func isColdTwoSubscriptionsTwoModals() {
        let harness = HostHarness()
        let client = harness.connect()
        let alert = yesNo(harness.session(of: client))
        let a = alert.subscribe()
        let b = alert.subscribe()
        harness.settle()
        #expect(client.presents.map(\.id) == ["m1", "m2"])
        a.dispose()
        b.dispose()
    }

    @Test func answerEmitsTheActionValueThenDismissesResolved() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<Bool>()
        _ = yesNo(harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        client.send(alertResult("m1", action: 1))
        harness.settle()
        #expect(outcome.elements == [true])
        #expect(outcome.completed)
        #expect(client.dismissals.map(\.reason) == [.resolved])
    }

    @Test func disposeBeforeAnswerDismissesAndALateAnswerIsIgnored() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<Bool>()
        let subscription = yesNo(harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        subscription.dispose()
        harness.settle()
        #expect(client.dismissals.map(\.reason) == [.disposed])
        client.send(alertResult("m1", action: 1))
        harness.settle()
        #expect(outcome.elements.isEmpty)
        #expect(client.errors.isEmpty)
    }

    /// An alert with one action of each output form: a sequence, a mapped value, an error, nothing.
    func pickAlert(_ session: Session) -> Observable<String> {
        RemoteModal.alert(
            presenter: .session(session), title: "Pick", textFields: [.plain(placeholder: "name")],
            actions: [
                .default(title: "Many", flatMapTo: .from(["a", "b", "c"])),
                .default(title: "Echo", map: { $0[0].uppercased() }),
                .destructive(title: "Boom", throw: RemoteModalError.failed("boom")),
                .cancel(title: "Nothing"),
            ])
    }

    @Test func streamEmitsWhatTheChosenActionEmits() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = pickAlert(harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        client.send(alertResult("m1", action: 0, textFields: ["x"]))
        harness.settle()
        #expect(outcome.elements == ["a", "b", "c"])
        #expect(outcome.completed)
    }

    @Test(arguments: [(1, ["ANN"], nil), (2, [], RemoteModalError.failed("boom")), (3, [], nil)])
    func eachActionFormBehaves(action: Int, expected: [String], error: RemoteModalError?) {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = pickAlert(harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        client.send(alertResult("m1", action: action, textFields: ["ann"]))
        harness.settle()
        #expect(outcome.elements == expected)
        #expect(outcome.error == error)
        #expect(outcome.finished)
    }

    @Test func unsupportedWhenTheClientLacksTheCapability() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["actionSheet"])
        let outcome = Outcome<Bool>()
        _ = yesNo(harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        #expect(outcome.error == .unsupported)
        #expect(client.presents.isEmpty)
    }

    @Test func missingPresenterForAnEmptyGroup() {
        let harness = HostHarness()
        _ = harness.connect(group: "kitchen")
        let outcome = Outcome<Bool>()
        _ = RemoteModal.alert(
            presenter: .group("lobby", on: harness.host), title: "?", actions: [.default(title: "OK", mapTo: true)]
        ).subscribe(outcome.observer())
        harness.settle()
        #expect(outcome.error == .missingPresenter)
    }

    @Test func clientFailuresMapToErrors() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcomes = (0..<3).map { _ in Outcome<Bool>() }
        for outcome in outcomes { _ = yesNo(harness.session(of: client)).subscribe(outcome.observer()) }
        harness.settle()
        client.send(.failure(id: "m1", code: .cancelled, message: nil))
        client.send(.failure(id: "m2", code: .denied, message: "no camera"))
        client.send(.failure(id: "m3", code: .failed, message: nil))
        harness.settle()
        #expect(outcomes.map(\.error) == [.cancelled, .denied("no camera"), .failed(nil)])
        #expect(client.dismissals.map(\.reason) == [.resolved, .resolved, .resolved])
    }

    @Test func enabledIfDrivesUpdatesAndDisabledAnswersAreRefused() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = RemoteModal.alert(
            presenter: .session(harness.session(of: client)), title: "Sign in",
            textFields: [.email(placeholder: "e-mail"), .password(placeholder: "password")],
            actions: [
                .cancel(title: "Cancel", mapTo: ""),
                DialogAction.default(title: "Sign In", map: { $0[0] }).enabledIf {
                    $0[0].contains("@") && !$0[1].isEmpty
                }
                .preferred(),
            ]
        ).subscribe(outcome.observer())
        harness.settle()
        #expect(client.presents.first?.modal.actions?.map(\.enabled) == [true, false])
        #expect(client.presents.first?.modal.actions?.map(\.preferred) == [false, true])
        client.send(alertResult("m1", action: 1, textFields: ["ann", ""]))
        harness.settle()
        #expect(client.errors == [.badMessage])
        client.send(.input(id: "m1", textFields: ["ann@example.com", ""]))
        client.send(.input(id: "m1", textFields: ["ann@example.com", "x"]))
        client.send(.input(id: "m1", textFields: ["ann@example.com", "xy"]))
        harness.settle()
        let updates = client.received.compactMap { message -> [Bool]? in
            if case .update(_, "m1", let actions) = message { return actions }
            return nil
        }
        #expect(updates == [[true, true]])
        client.send(alertResult("m1", action: 1, textFields: ["ann@example.com", "xy"]))
        harness.settle()
        #expect(outcome.elements == ["ann@example.com"])
    }

    @Test func wrongResultShapesAreRefusedAndTheModalStaysPending() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<Bool>()
        _ = yesNo(harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        client.send(.result(id: "m1", value: ["action": 5]))
        client.send(.result(id: "m1", value: ["action": "1"]))
        client.send(.result(id: "m1", value: "yes"))
        harness.settle()
        #expect(client.errors == [.badMessage, .badMessage, .badMessage])
        #expect(!outcome.finished)
        client.send(alertResult("m1", action: 0))
        harness.settle()
        #expect(outcome.elements == [false])
    }

    @Test func anotherSessionsModalIdIsUnknownThere() {
        let harness = HostHarness()
        let owner = harness.connect()
        let intruder = harness.connect()
        let outcome = Outcome<Bool>()
        _ = yesNo(harness.session(of: owner)).subscribe(outcome.observer())
        harness.settle()
        intruder.send(alertResult("m1", action: 1))
        harness.settle()
        #expect(intruder.errors == [.unknownModal])
        #expect(!outcome.finished)
    }

    @Test func timeoutDismissesAndFails() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<Bool>()
        _ = yesNo(harness.session(of: client), timeout: .seconds(30)).subscribe(outcome.observer())
        harness.settle()
        harness.advance(seconds: 29)
        #expect(!outcome.finished)
        harness.advance(seconds: 2)
        #expect(outcome.error == .timeout)
        #expect(client.dismissals.map(\.reason) == [.timeout])
    }

    @Test func pendingLimitPerSession() {
        let harness = HostHarness { $0.maxPendingModalsPerSession = 2 }
        let client = harness.connect()
        let outcomes = (0..<3).map { _ in Outcome<Bool>() }
        for outcome in outcomes { _ = yesNo(harness.session(of: client)).subscribe(outcome.observer()) }
        harness.settle()
        #expect(client.presents.count == 2)
        #expect(outcomes[2].error == .tooManyPending)
    }

    @Test func actionSheetCarriesItsSource() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = RemoteModal.actionSheet(
            presenter: .session(harness.session(of: client)), source: "contact", title: "Contact us",
            actions: [.default(title: "Mail", mapTo: "mail"), .cancel(title: "Cancel", mapTo: "none")]
        ).subscribe(outcome.observer())
        harness.settle()
        guard case .actionSheet(_, _, let source, _)? = client.presents.first?.modal else {
            Issue.record("no action sheet")
            return
        }
        #expect(source == "contact")
        client.send(.result(id: "m1", value: ["action": 0]))
        harness.settle()
        #expect(outcome.elements == ["mail"])
    }
}
