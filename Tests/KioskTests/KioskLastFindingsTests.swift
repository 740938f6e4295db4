import RemoteModalClient
import RemoteModalProtocol
import Testing

@testable import RemoteModalKiosk

/// Issue #32's last kiosk findings on the model and the screen (the tmux tests are in
/// Tests/terminal/test_kiosk_last_findings.py).
@Suite("Kiosk (#32): a tap waits in words, wrapped lines keep their indent, a fresh notice stays")
struct KioskLastFindingsTests {
    private func connected() -> KioskModel {
        var model = KioskModel(name: "lobby-1", group: nil, clock: { "12:00:00" })
        model.apply(.connection(.connected(resumed: false)), now: 0)
        model.apply(.controls([ControlItem(id: "signIn", title: "Sign in")]), now: 0)
        return model
    }

    @Test func aTapSaysAtOnceThatItWaitsAndALostHostIsSaidOfTheTap() {
        var model = connected()
        #expect(model.press(.character("1"), now: 1) == [.tap("signIn")])
        #expect(model.banner == "\u{201C}Sign in\u{201D}: waiting for the host...")
        #expect(model.bannerExpiry == 1 + KioskModel.tapWaitLimit)
        model.apply(.connection(.reconnecting(attempt: 1, retryIn: 1, why: .silent(seconds: 9))), now: 10)
        let words = model.banner ?? ""
        #expect(
            words.hasPrefix("\u{201C}Sign in\u{201D} got no answer: the host is not answering (nothing heard for 9 s).")
        )
        #expect(!words.contains("not available"))
    }

    @Test func anythingFromTheHostEndsTheWaitAndAnAliveHostThatDidNothingIsSaidSo() {
        var model = connected()
        _ = model.press(.character("1"), now: 1)
        model.apply(.status(.info, "Busy"), now: 1.2)
        #expect(model.banner == nil)
        _ = model.press(.character("1"), now: 2)
        model.tick(now: 2 + KioskModel.tapWaitLimit)
        #expect(
            model.banner == "\u{201C}Sign in\u{201D} got no answer from the host yet. Tap it again if nothing opens.")
    }

    @Test func aFreshNoticeStaysItsLifetimeUnlessANewerOneReplacesIt() {
        var model = connected()
        model.apply(.status(.success, "Country: Japan"), now: 1)
        #expect(model.freshNotice?.text == "Country: Japan")
        _ = model.press(.right, now: 2)
        model.apply(.controls([ControlItem(id: "signIn", title: "Sign in")]), now: 3)
        model.tick(now: 1 + KioskModel.bannerLifetime - 0.1)
        #expect(model.freshNotice?.text == "Country: Japan", "a key, the controls, the clock do not put it off")
        #expect(KioskScreen.lines(model, width: 80, height: 24)[2] == "SUCCESS: Country: Japan  (12:00:00)")
        model.tick(now: 1 + KioskModel.bannerLifetime)
        #expect(model.freshNotice == nil)
        #expect(KioskScreen.lines(model, width: 80, height: 24).contains("  SUCCESS: Country: Japan  (12:00:00)"))
        model.apply(.status(.info, "Country: none"), now: 30)
        model.apply(.status(.success, "Country: France"), now: 31)
        #expect(model.freshNotice?.text == "Country: France", "the newer replaces it")
    }

    /// Issue 32's cold trial at 40x12: every outage made the screen "Screen too small" (the
    /// words about the connection took the rows the menu needed), the reason hidden and keys
    /// ignored. The words take the rows left, cut to fit.
    @Test func at40x12AnOutageIsSaidInTheRowsLeftNotTerminalTooSmall() {
        var model = KioskModel(name: "lobby-2", group: "lobby", clock: { "12:00:00" })
        model.apply(.connection(.connected(resumed: false)), now: 0)
        model.apply(
            .controls(
                ["Sign in", "Contact us", "Log in", "Choose country", "Send photos", "Request approval"].enumerated()
                    .map { ControlItem(id: "c\($0.offset)", title: $0.element) }), now: 0)
        #expect(!KioskScreen.lines(model, width: 40, height: 12).contains { $0.contains("too small") })
        model.apply(.connection(.reconnecting(attempt: 3, retryIn: 4, why: .failed(.reset))), now: 1)
        let screen = KioskScreen.lines(model, width: 40, height: 12)
        #expect(!screen.contains { $0.contains("too small") }, "\(screen)")
        #expect(screen.contains { $0.hasPrefix("Lost the host at") }, "\(screen)")
        #expect(screen.contains { $0.contains("[6] Request approval") }, "\(screen)")
        #expect(screen.count <= 12)
    }

    @Test func wrappedLinesKeepTheIndentOfTheirFirstLine() {
        let rule = KioskScreen.wrap(.init("      Enter an e-mail address with an @ and a password"), width: 40).map(
            \.text)
        #expect(rule == ["      Enter an e-mail address with an @", "      and a password"])
        let error = KioskScreen.wrap(.init("    ^ Up to 3 files, 10.5 MB in all; these are 4 files"), width: 40)
        #expect(error.dropFirst().allSatisfy { $0.text.hasPrefix("      ") && !$0.text.hasPrefix("       ") })
        let choice = KioskScreen.wrap(.init("  [2] Send the photographs to the front desk"), width: 40)
        #expect(choice.map(\.text).last?.hasPrefix("      ") == true)
        let plain = KioskScreen.wrap(.init("Number or Enter (France) picks. Esc cancels."), width: 40)
        #expect(plain.map(\.text) == ["Number or Enter (France) picks. Esc", "  cancels."])
    }
}
