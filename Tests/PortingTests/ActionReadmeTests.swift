import RemoteModalAction
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

/// Action's README, ported. Changes: `button.rx.action = action` becomes
/// `control.bind(to: action)`, `rx.bindTo(action) { _ in input }` becomes
/// `bind(to: action) { input }`, and the text field is a relay.
@Suite("Action README examples")
struct ActionReadmeTests {
    /// Stands in for the README's `networkLibrary`.
    enum NetworkLibrary {
        static func checkEmailExists(_ email: String) -> Observable<Bool> { .just(email == "ash@ashfurrow.com") }
    }

    static func isValidEmail(_ text: String?) -> Bool { text?.contains("@") ?? false }

    @Test func executeAndElements() {
        let networkLibrary = NetworkLibrary.self
        let exists = Printed()

        // ---- ported example ----
        let action: Action<String, Bool> = Action(workFactory: { input in
            return networkLibrary.checkEmailExists(input)
        })
        _ = action.elements.subscribe(onNext: { exists.print("\($0)") })
        action.execute("ash@ashfurrow.com")
        // ---- end ----

        #expect(exists.all == ["true"])
    }

    @Test func enabledIfGatesTheWork() {
        let networkLibrary = NetworkLibrary.self
        let emailText = BehaviorRelay<String?>(value: "not an address")
        let refused = Printed()

        // ---- ported example (`emailTextField.rx.text` is a relay here) ----
        let validEmailAddress = emailText.map(Self.isValidEmail)
        let action: Action<String, Bool> = Action(
            enabledIf: validEmailAddress,
            workFactory: { input in
                return networkLibrary.checkEmailExists(input)
            })
        // ---- end ----

        _ = action.errors.subscribe(onNext: { refused.print("\($0)") })
        action.execute("not an address")
        emailText.accept("ash@ashfurrow.com")
        let result = Printed()
        _ = action.execute("ash@ashfurrow.com").subscribe(onNext: { result.print("\($0)") })
        #expect(refused.all == ["not enabled"])
        #expect(result.all == ["true"])
    }

    @Test func cocoaActionOnAButton() {
        let harness = PortingHarness()
        let button = harness.session.control("save", title: "Save")
        let saves = Printed()

        // ---- ported example ----
        let action = CocoaAction {
            saves.print("saved")
            return .empty()
        }
        button.bind(to: action)  // button.rx.action = action
        // ---- end ----

        harness.settle()
        harness.client.send(.event(control: "save"))
        harness.settle()
        #expect(saves.all == ["saved"])
        #expect(harness.client.controls == [ControlItem(id: "save", title: "Save", enabled: true, busy: false)])
    }

    @Test func twoButtonsShareOneActionWithTheirOwnInput() {
        let harness = PortingHarness()
        let printed = Printed()

        // ---- ported example ----
        let button1 = harness.session.control("hello", title: "1")
        let button2 = harness.session.control("goodbye", title: "2")

        let action = Action<String, String> { input in
            printed.print(input)
            return .just(input)
        }
        button1.bind(to: action) { return "Hello" }
        button2.bind(to: action) { return "Goodbye" }
        // ---- end ----

        harness.settle()
        harness.client.send(.event(control: "goodbye"))
        harness.settle()
        harness.client.send(.event(control: "hello"))
        harness.settle()
        #expect(printed.all == ["Goodbye", "Hello"])
    }
}
