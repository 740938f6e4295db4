import RemoteModalClient
import RemoteModalProtocol
import Testing

@testable import RemoteModalKiosk

/// Issue #32: a control tapped while the host is being reconnected to is kept, once per
/// control, and goes once it is back, as the page keeps it; a host that refuses the kiosk
/// gets nothing, and the person is told. (The tmux test is in
/// Tests/terminal/test_kiosk_passer_by.py.)
@Suite("Kiosk (#32): a tap while reconnecting is kept and goes once the host is back")
struct KioskKeptTapsTests {
    private func reconnecting() -> KioskModel {
        var model = KioskModel(name: "lobby-1", group: nil, clock: { "12:00:00" })
        model.apply(.connection(.connected(resumed: false)), now: 0)
        model.apply(
            .controls([
                ControlItem(id: "signIn", title: "Sign in"), ControlItem(id: "country", title: "Choose country"),
            ]),
            now: 0)
        model.apply(.connection(.reconnecting(attempt: 1, retryIn: 2, why: .failed(.reset))), now: 1)
        return model
    }

    @Test func aTapWhileReconnectingIsKeptOnceAndSaidSo() {
        var model = reconnecting()
        #expect(model.press(.character("2"), now: 2).isEmpty, "nothing goes to a host that is away")
        #expect(model.press(.character("2"), now: 3).isEmpty)
        #expect(model.press(.character("1"), now: 4).isEmpty)
        #expect(model.keptTaps.map(\.id) == ["country", "signIn"], "one per control, in order")
        #expect(
            model.banner == "Saved: \u{201C}Choose country\u{201D}, \u{201C}Sign in\u{201D} go when the host is back.")
        let screen = KioskScreen.lines(model, width: 100, height: 30)
        #expect(screen.contains { $0.contains("[2] Choose country  (saved: goes when the host is back)") }, "\(screen)")
        #expect(!screen.contains { $0.contains("nothing was sent") })
    }

    @Test func theKeptTapsGoOnceWhenTheHostIsBack() {
        var model = reconnecting()
        _ = model.press(.character("2"), now: 2)
        _ = model.press(.character("1"), now: 3)
        #expect(model.takeDueChoice(now: 3.5).isEmpty, "not while the host is away")
        model.apply(.connection(.connected(resumed: true)), now: 5)
        #expect(model.takeDueChoice(now: 5) == [.tap("country"), .tap("signIn")])
        #expect(model.takeDueChoice(now: 5.1).isEmpty, "sent once")
        #expect(model.keptTaps.isEmpty)
        #expect(model.banner == "\u{201C}Sign in\u{201D}: waiting for the host...")
        #expect(
            model.notices.contains {
                $0.text
                    == "Sent what was saved while the host was away: \u{201C}Choose country\u{201D}, \u{201C}Sign in\u{201D}."
            })
        let screen = KioskScreen.lines(model, width: 100, height: 30)
        #expect(!screen.contains { $0.contains("saved: goes") }, "\(screen)")
    }

    @Test func aHostThatRefusesTheKioskGetsNothingAndThePersonIsTold() {
        var model = reconnecting()
        _ = model.press(.character("1"), now: 2)
        model.apply(.connection(.stopped(.unauthorized(message: nil))), now: 3)
        #expect(model.keptTaps.isEmpty)
        #expect(model.banner == "\u{201C}Sign in\u{201D} was not sent: the host refused this kiosk.")
        model.apply(.connection(.connected(resumed: false)), now: 9)
        #expect(model.takeDueChoice(now: 9).isEmpty, "forgotten, never sent later")
    }

    @Test func aTapKeptLongerThanItsLifetimeIsDroppedAndSaidSo() {
        var model = reconnecting()
        _ = model.press(.character("2"), now: 2)
        _ = model.press(.character("1"), now: 40)
        #expect(model.bannerExpiry == 62, "the kiosk wakes when the first kept tap runs out")
        model.tick(now: 62)
        #expect(model.keptTaps.map(\.id) == ["signIn"], "only the one kept 60 s goes")
        #expect(
            model.banner
                == "\u{201C}Choose country\u{201D} was not sent: the host was away for more than 1 minute. "
                + "Tap again once the host is back.")
        model.apply(.connection(.connected(resumed: true)), now: 70)
        #expect(model.takeDueChoice(now: 70) == [.tap("signIn")], "the younger tap still goes, the old one never")
    }

    @Test func withNoLifetimeATapWhileAwayIsNotKept() {
        var model = KioskModel(name: "lobby-1", group: nil, clock: { "12:00:00" }, keptTapLifetime: 0)
        model.apply(.connection(.connected(resumed: false)), now: 0)
        model.apply(.controls([ControlItem(id: "signIn", title: "Sign in")]), now: 0)
        model.apply(.connection(.reconnecting(attempt: 1, retryIn: 2, why: .failed(.reset))), now: 1)
        #expect(model.press(.character("1"), now: 2).isEmpty)
        #expect(model.keptTaps.isEmpty)
        #expect(model.banner == KioskModel.notConnected)
    }

    @Test func aDisabledControlIsNotKept() {
        var model = reconnecting()
        model.apply(.controls([ControlItem(id: "signIn", title: "Sign in", enabled: false)]), now: 2)
        #expect(model.press(.character("1"), now: 3).isEmpty)
        #expect(model.keptTaps.isEmpty)
        #expect(model.banner == "\u{201C}Sign in\u{201D} is not available right now.")
    }

    @Test func beforeAnyWelcomeATapStillGoesToTheCoreAndIsRefusedInWords() {
        var model = KioskModel(name: "lobby-1", group: nil, clock: { "12:00:00" })
        model.apply(.connection(.connecting), now: 0)
        model.apply(.controls([ControlItem(id: "signIn", title: "Sign in")]), now: 0)
        #expect(model.press(.character("1"), now: 1) == [.tap("signIn")])
        #expect(model.keptTaps.isEmpty)
    }
}
