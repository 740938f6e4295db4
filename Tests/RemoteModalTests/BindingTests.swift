import RemoteModalAction
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

@Suite("Controls and dialog actions bound to Actions")
struct BindingTests {
    @Test func controlFollowsTheActionAndTapsExecuteIt() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)
        let work = PublishSubject<Void>()
        let action = ButtonAction { work.take(1) }
        let errors = Outcome<String>()
        _ = action.errors.map { "\($0)" }.subscribe(errors.observer())
        session.control("go", title: "Go").bind(to: action)
        harness.settle()
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: true, busy: false)])
        client.send(.event(control: "go"))
        harness.settle()
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: false, busy: true)])
        client.send(.event(control: "go"))
        harness.settle()
        #expect(errors.elements == ["not enabled"])
        work.onNext(())
        harness.settle()
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: true, busy: false)])
    }

    /// `rx.action` semantics: the control owns its action, so an action made inline in
    /// `bind(to:)` keeps working (it used to be released at once and taps did nothing).
    @Test func aControlKeepsAnInlineActionAlive() {
        let harness = HostHarness()
        let client = harness.connect()
        let runs = Outcome<String>()
        harness.session(of: client).control("go", title: "Go").bind(
            to: ButtonAction {
                runs.observer().onNext("ran")
                return .just(())
            })
        harness.settle()
        client.send(.event(control: "go"))
        harness.settle()
        client.send(.event(control: "go"))
        harness.settle()
        #expect(runs.elements == ["ran", "ran"])
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: true, busy: false)])
    }

    @Test func eachControlSuppliesItsOwnInput() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)
        let choose = Action<String, String> { .just("chose \($0)") }
        let chosen = Outcome<String>()
        _ = choose.elements.subscribe(chosen.observer())
        session.control("red", title: "Red").bind(to: choose, input: "red")
        session.control("blue", title: "Blue").bind(to: choose) { "blue at \(session.id.isEmpty ? 0 : 1)" }
        harness.settle()
        client.send(.event(control: "blue"))
        harness.settle()
        client.send(.event(control: "red"))
        harness.settle()
        #expect(chosen.elements == ["chose blue at 1", "chose red"])
    }

    @Test func removingTheControlReleasesTheBoundAction() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)
        weak var weakAction: ButtonAction?
        do {
            let action = ButtonAction { .just(()) }
            weakAction = action
            session.control("go", title: "Go").bind(to: action)
        }
        harness.settle()
        #expect(weakAction != nil)
        session.removeControl("go")
        harness.settle()
        #expect(weakAction == nil)
    }

    @Test func endingTheSessionReleasesTheBoundAction() {
        let harness = HostHarness { $0.retentionSeconds = 1 }
        let client = harness.connect()
        let session = harness.session(of: client)
        weak var weakAction: ButtonAction?
        do {
            let action = ButtonAction { .just(()) }
            weakAction = action
            session.control("go", title: "Go").bind(to: action)
        }
        harness.settle()
        #expect(weakAction != nil)
        client.disconnect()
        harness.settle()
        harness.advance(seconds: 2)
        #expect(weakAction == nil)
    }

    @Test func rebindingReplacesTheOldBindingAndNothingIsRetained() {
        let harness = HostHarness()
        let client = harness.connect()
        let control = harness.session(of: client).control("go", title: "Go")
        let runs = Outcome<String>()
        weak var weakFirst: ButtonAction?
        do {
            let first = ButtonAction {
                runs.observer().onNext("first")
                return .just(())
            }
            weakFirst = first
            control.bind(to: first)
            client.send(.event(control: "go"))
            harness.settle()
        }
        // The control owns its bound action (issue 20): the first lives until it is replaced.
        #expect(weakFirst != nil)
        let second = ButtonAction {
            runs.observer().onNext("second")
            return .just(())
        }
        control.bind(to: second)
        #expect(weakFirst == nil)
        client.send(.event(control: "go"))
        harness.settle()
        #expect(runs.elements == ["first", "second"])
    }

    /// `bind(lazily:)` (issue 31): an idle session holds no action; the control shows enabled
    /// and idle without it, and the first tap makes it, runs it and binds the states to it.
    @Test func aLazilyBoundActionIsMadeAtTheFirstTapAndDrivesTheControlFromThen() {
        let harness = HostHarness()
        let client = harness.connect()
        let session = harness.session(of: client)
        let made = Outcome<String>()
        let work = PublishSubject<Void>()
        let errors = Outcome<String>()
        let weakAction = WeakAction()
        session.control("go", title: "Go").bind(lazily: {
            made.observer().onNext("made")
            let action = ButtonAction { work.take(1) }
            _ = action.errors.map { "\($0)" }.subscribe(errors.observer())
            weakAction.value = action
            return action
        })
        harness.settle()
        #expect(made.elements.isEmpty)
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: true, busy: false)])
        client.send(.event(control: "go"))
        harness.settle()
        #expect(made.elements == ["made"])
        #expect(weakAction.value != nil)
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: false, busy: true)])
        // A tap while it runs reaches the same action, which refuses it.
        client.send(.event(control: "go"))
        harness.settle()
        #expect(errors.elements == ["not enabled"])
        work.onNext(())
        harness.settle()
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: true, busy: false)])
        client.send(.event(control: "go"))
        harness.settle()
        #expect(made.elements == ["made"])
        #expect(client.controls == [ControlItem(id: "go", title: "Go", enabled: false, busy: true)])
        session.removeControl("go")
        harness.settle()
        #expect(weakAction.value == nil)
    }

    @Test func endingTheSessionBeforeAnyTapMakesNoAction() {
        let harness = HostHarness { $0.retentionSeconds = 1 }
        let client = harness.connect()
        let made = Outcome<String>()
        harness.session(of: client).control("go", title: "Go").bind(lazily: {
            made.observer().onNext("made")
            return ButtonAction { .just(()) }
        })
        harness.settle()
        client.disconnect()
        harness.settle()
        harness.advance(seconds: 2)
        #expect(made.elements.isEmpty)
    }

    @Test func dialogActionBoundToAnAction() {
        let harness = HostHarness()
        let client = harness.connect()
        let gate = BehaviorRelay(value: false)
        let save = Action<[String], String>(enabledIf: gate.asObservable()) { .just("saved \($0[0])") }
        let outcome = Outcome<String>()
        _ = RemoteModal.alert(
            presenter: .session(harness.session(of: client)), title: "Name", textFields: [.plain()],
            actions: [.cancel(title: "Cancel", mapTo: "none"), .bound(title: "Save", to: save)]
        ).subscribe(outcome.observer())
        harness.settle()
        #expect(client.presents.first?.modal.actions?.map(\.enabled) == [true, false])
        gate.accept(true)
        harness.settle()
        #expect(client.received.contains(.update(seq: client.received.last!.seq!, id: "m1", actions: [true, true])))
        client.send(alertResult("m1", action: 1, textFields: ["ann"]))
        harness.settle()
        #expect(outcome.elements == ["saved ann"])
    }
}

/// A weak reference a `@Sendable` closure can set (tests: whether an action was released).
private final class WeakAction: @unchecked Sendable {
    // `@unchecked Sendable`: set once on the host executor, read after the harness settled.
    weak var value: ButtonAction?
}
