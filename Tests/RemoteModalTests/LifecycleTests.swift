import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

@Suite("Reconnects, retention, groups, shutdown")
struct LifecycleTests {
    func ask(_ session: Session, _ title: String) -> Observable<Int> {
        RemoteModal.alert(
            presenter: .session(session), title: title,
            actions: [.default(title: "Zero", mapTo: 0), .default(title: "One", mapTo: 1)])
    }

    @Test func resumeRepresentsPendingModalsInOrderAndAnswersArriveExactlyOnce() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)
        let first = Outcome<Int>()
        let second = Outcome<Int>()
        _ = ask(session, "first").subscribe(first.observer())
        _ = ask(session, "second").subscribe(second.observer())
        session.control("signIn", title: "Sign in")
        harness.settle()
        client.disconnect()
        harness.settle()
        let resumed = harness.connect(resume: client.session)
        guard case .welcome(let id, true, _, _, _)? = resumed.received.first else {
            Issue.record("not resumed")
            return
        }
        #expect(id == client.session)
        #expect(resumed.controls?.map(\.id) == ["signIn"])
        #expect(resumed.presents.map(\.id) == ["m1", "m2"])
        #expect(resumed.presents.map(\.modal.title) == ["first", "second"])
        // The answer, re-sent after a reconnect, is delivered once.
        resumed.send(alertResult("m1", action: 1))
        resumed.send(alertResult("m1", action: 0))
        harness.settle()
        #expect(first.elements == [1])
        #expect(resumed.errors.isEmpty)
        // The duplicate gets the dismiss repeated, so a client that missed it can forget the answer.
        #expect(resumed.dismissals.map(\.id) == ["m1", "m1"])
        #expect(!second.finished)
    }

    @Test func theLast64EndedModalsHaveTheirDismissRepeatedWithTheirReason() {
        let harness = HostHarness { $0.messagesPerSecond = 10_000 }
        let client = harness.connect()
        let session = harness.session(of: client)
        for number in 1...70 {
            let subscription = ask(session, "q\(number)").subscribe()
            harness.settle()
            if number == 69 {
                subscription.dispose()
            } else {
                client.send(alertResult("m\(number)", action: 0))
            }
            harness.settle()
        }
        let before = client.dismissals.count
        // m7...m70 are the last 64 to end; m6 is forgotten: no dismiss, and still no error.
        for id in ["m70", "m69", "m7", "m6"] { client.send(alertResult(id, action: 1)) }
        harness.settle()
        let repeated = client.dismissals.dropFirst(before)
        #expect(repeated.map(\.id) == ["m70", "m69", "m7"])
        #expect(repeated.map(\.reason) == [.resolved, .disposed, .resolved])
        #expect(client.errors.isEmpty)
    }

    @Test func unknownResumeGetsANewSession() {
        let harness = HostHarness()
        let client = harness.connect(resume: "made-up")
        guard case .welcome(let id, false, _, _, _)? = client.received.first else {
            Issue.record("no fresh welcome")
            return
        }
        #expect(id != "made-up")
    }

    @Test func retentionExpiryFailsPendingModals() {
        let harness = HostHarness { $0.retentionSeconds = 60 }
        let client = harness.connect()
        let session = harness.session(of: client)
        let outcome = Outcome<Int>()
        let ended = Outcome<Void>()
        _ = ask(session, "q").subscribe(outcome.observer())
        _ = session.ended.subscribe(ended.observer())
        harness.settle()
        client.disconnect()
        harness.settle()
        harness.advance(seconds: 59)
        #expect(!outcome.finished)
        harness.advance(seconds: 2)
        #expect(outcome.error == .sessionExpired)
        #expect(ended.completed)
        let late = harness.connect(resume: client.session)
        guard case .welcome(_, let resumed, _, _, _)? = late.received.first else {
            Issue.record("no welcome")
            return
        }
        #expect(!resumed)
    }

    @Test func resumeWithinRetentionCancelsExpiry() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<Int>()
        _ = ask(harness.session(of: client), "q").subscribe(outcome.observer())
        harness.settle()
        client.disconnect()
        harness.advance(seconds: 30)
        let back = harness.connect(resume: client.session)
        harness.advance(seconds: 120)
        #expect(!outcome.finished)
        back.send(alertResult("m1", action: 0))
        harness.settle()
        #expect(outcome.elements == [0])
    }

    @Test func twoConnectionsOnOneSessionFirstAnswerWins() {
        let harness = HostHarness()
        let a = harness.connect()
        let b = harness.connect(resume: a.session)
        let outcome = Outcome<Int>()
        _ = ask(harness.session(of: a), "q").subscribe(outcome.observer())
        harness.settle()
        #expect(a.presents.count == 1)
        #expect(b.presents.count == 1)
        b.send(alertResult("m1", action: 1))
        a.send(alertResult("m1", action: 0))
        harness.settle()
        #expect(outcome.elements == [1])
        // The late answer is not an error; the host repeats the dismiss for it.
        #expect(a.dismissals.map(\.reason) == [.resolved, .resolved])
        #expect(b.dismissals.map(\.reason) == [.resolved, .resolved])
        #expect(a.errors.isEmpty)
    }

    @Test func groupPresentationFirstAnswerWinsOthersSuperseded() {
        let harness = HostHarness()
        let lobby1 = harness.connect(name: "lobby-1", group: "lobby")
        let lobby2 = harness.connect(name: "lobby-2", group: "lobby")
        let kitchen = harness.connect(name: "kitchen", group: "kitchen")
        let outcome = Outcome<String>()
        _ = RemoteModal.alert(
            presenter: .group("lobby", on: harness.host), title: "Approve request?",
            actions: [
                .default(title: "Approve", mapContext: { "Approved by \($0.session.client.name)" }),
                .destructive(title: "Reject", mapContext: { "Rejected by \($0.session.client.name)" }),
            ]
        ).subscribe(outcome.observer())
        harness.settle()
        #expect(lobby1.presents.count == 1)
        #expect(lobby2.presents.count == 1)
        #expect(kitchen.presents.isEmpty)
        lobby2.send(alertResult(lobby2.presents[0].id, action: 0))
        lobby1.send(alertResult(lobby1.presents[0].id, action: 1))
        harness.settle()
        #expect(outcome.elements == ["Approved by lobby-2"])
        #expect(lobby2.dismissals.map(\.reason) == [.resolved])
        // lobby-1's late answer is re-confirmed with the same reason, not refused.
        #expect(lobby1.dismissals.map(\.reason) == [.superseded, .superseded])
        #expect(lobby1.errors.isEmpty)
    }

    /// Issue 32's cold trial: the only approver's session expired while its screen was away;
    /// its new session, and any screen that joined later, were never shown the open request,
    /// and the requester waited for ever.
    @Test func aSessionJoiningTheGroupIsShownItsOpenPresentationsAndCanAnswer() throws {
        let harness = HostHarness()
        let asker = harness.connect(name: "asker", group: "lobby")
        let outcome = Outcome<String>()
        _ = RemoteModal.alert(
            presenter: .group("lobby", on: harness.host, requestedBy: harness.session(of: asker)),
            title: "Approve request?",
            actions: [
                .default(title: "Approve", mapContext: { "Approved by \($0.session.client.name)" }),
                .destructive(title: "Reject", mapContext: { "Rejected by \($0.session.client.name)" }),
            ]
        ).subscribe(outcome.observer())
        harness.settle()
        #expect(asker.presents.count == 1)
        let kitchen = harness.connect(name: "kitchen", group: "kitchen")
        let late = harness.connect(name: "late", group: "lobby")
        let textOnly = harness.connect(name: "no-alerts", group: "lobby", capabilities: ["textField"])
        harness.settle()
        #expect(kitchen.presents.isEmpty, "another group's screen is not shown it")
        #expect(textOnly.presents.isEmpty, "a screen that cannot show the kind is not shown it")
        try #require(late.presents.count == 1)
        #expect(late.presents[0].modal.title == "Approve request?")
        late.send(alertResult(late.presents[0].id, action: 0))
        harness.settle()
        #expect(outcome.elements == ["Approved by late"])
        #expect(late.dismissals.map(\.reason) == [.resolved])
        #expect(asker.dismissals.map(\.reason) == [.superseded])
        // Once answered, a screen joining later is shown nothing.
        let later = harness.connect(name: "later", group: "lobby")
        harness.settle()
        #expect(later.presents.isEmpty)
    }

    @Test func shutdownFailsPendingDismissesAndCloses() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<Int>()
        _ = ask(harness.session(of: client), "q").subscribe(outcome.observer())
        harness.settle()
        harness.host.shutdown()
        #expect(outcome.error == .hostShutdown)
        #expect(client.dismissals.map(\.reason) == [.shutdown])
        #expect(client.closeCode == .goingAway)
        let after = Outcome<Int>()
        _ = ask(harness.session(of: client), "later").subscribe(after.observer())
        harness.settle()
        #expect(after.error == .hostShutdown)
    }

    @Test func controlsAreSentAndTapsArriveOnlyWhileEnabled() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)
        let control = session.control("signIn", title: "Sign in")
        let taps = Outcome<Void>()
        let refused = Outcome<Void>()
        _ = control.tap.subscribe(taps.observer())
        _ = control.tapWhileDisabled.subscribe(refused.observer())
        harness.settle()
        #expect(client.controls == [ControlItem(id: "signIn", title: "Sign in")])
        client.send(.event(control: "signIn"))
        client.send(.event(control: "unknown"))
        harness.settle()
        #expect(taps.elements.count == 1)
        control.set(enabled: false, busy: true)
        harness.settle()
        #expect(client.controls == [ControlItem(id: "signIn", title: "Sign in", enabled: false, busy: true)])
        client.send(.event(control: "signIn"))
        harness.settle()
        #expect(taps.elements.count == 1)
        #expect(refused.elements.count == 1)
        #expect(client.errors.isEmpty)
    }

    @Test func metricsCountWhatHappened() {
        let harness = HostHarness()
        let client = harness.connect()
        _ = ask(harness.session(of: client), "q").subscribe()
        harness.settle()
        client.send(alertResult("m1", action: 0))
        client.send(raw: "{")
        harness.settle()
        let text = harness.host.metricsText
        #expect(text.contains("remote_modal_modals_presented_total 1"))
        #expect(text.contains("remote_modal_modals_resolved_total 1"))
        #expect(text.contains("remote_modal_modals_dismissed_total{reason=\"resolved\"} 1"))
        #expect(text.contains("remote_modal_errors_total{code=\"bad_json\"} 1"))
        #expect(text.contains("remote_modal_sessions 1"))
        #expect(text.contains("remote_modal_answer_seconds_count 1"))
    }
}
