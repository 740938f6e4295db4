import RemoteModalClient
import RemoteModalProtocol
import Testing

@testable import RemoteModalKiosk

/// Issue #32's last cold trial: after six outages the kiosk's list held six of its own
/// errors ("The host restarted: ... was cancelled"), and from then on every outcome the host
/// sent was dropped as it came (the eviction chose the first notice that was not an error:
/// the new one). And an idle kiosk showed those errors to every passer-by for hours.
@Suite("Kiosk (#32): a full list of errors never hides a new notice, and old notices leave")
struct KioskNoticeListTests {
    private func connected() -> KioskModel {
        var model = KioskModel(name: "lobby-1", group: nil, clock: { "12:00:00" })
        model.apply(.connection(.connected(resumed: false)), now: 0)
        return model
    }

    @Test func aNewNoticeStaysWhenTheListIsFullOfErrors() {
        var model = connected()
        for index in 0..<KioskModel.noticeLimit {
            model.apply(.status(.error, "The host restarted: \u{201C}Mail \(index)\u{201D} was cancelled."), now: 1)
        }
        model.apply(.status(.success, "Country: Japan"), now: 2)
        #expect(model.notices.last?.text == "Country: Japan")
        #expect(model.freshNotice?.text == "Country: Japan", "on the top line")
        #expect(model.notices.count == KioskModel.noticeLimit)
        #expect(!model.notices.contains { $0.text.contains("Mail 0") }, "the oldest error made room")
        let screen = KioskScreen.lines(model, width: 100, height: 30)
        #expect(screen.contains { $0.contains("SUCCESS: Country: Japan") }, "\(screen)")
        // Errors are kept before the rest (the oldest that is not an error goes first), but
        // the newest always stays.
        model.apply(.status(.info, "Photos cancelled"), now: 3)
        #expect(!model.notices.contains { $0.text == "Country: Japan" })
        #expect(model.notices.last?.text == "Photos cancelled")
        #expect(model.notices.filter { $0.level == .error }.count == KioskModel.noticeLimit - 1)
    }

    @Test func aNoticeLeavesTheListItsLifetimeAfterItLastCame() {
        var model = connected()
        model.apply(.status(.error, "The host restarted."), now: 10)
        model.apply(.status(.info, "Photos cancelled"), now: 100)
        #expect(model.bannerExpiry != nil)
        model.tick(now: 10 + KioskModel.noticeLifetime)
        #expect(model.notices.map(\.text) == ["Photos cancelled"])
        model.apply(.status(.info, "Photos cancelled"), now: 650)
        model.tick(now: 100 + KioskModel.noticeLifetime)
        #expect(model.notices.map(\.text) == ["Photos cancelled"], "it came again at 650: counted from then")
        model.tick(now: 650 + KioskModel.noticeLifetime)
        #expect(model.notices.isEmpty)
    }
}
