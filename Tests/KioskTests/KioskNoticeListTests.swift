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

/// Issue #32's last cold trial, finding 2: a tap to a host that stalled got "no answer" in
/// words, then its sheet opened 47 s later, once the host was back, with no word.
@Suite("Kiosk (#32): a dialog opened by a tap the host read late says so")
struct KioskLateTapTests {
    private let country = ModalDescription.actionSheet(
        title: "Choose a country", message: nil, source: nil,
        actions: [ActionSpec(title: "France"), ActionSpec(title: "Cancel", style: .cancel)])

    @Test func aDialogJustAfterTheHostIsBackIsSaidToComeFromTheLostTap() {
        var kiosk = Kiosk()
        kiosk.receive(.welcome(session: "s1", resumed: false, retentionSeconds: 60))
        kiosk.receive(.controls(seq: kiosk.nextSeq(), items: [ControlItem(id: "country", title: "Choose country")]))
        kiosk.advance(1)
        #expect(kiosk.press(.character("1")) == [.event(control: "country")])
        kiosk.advance(9)
        kiosk.drop()
        #expect(kiosk.model.banner?.hasPrefix("\u{201C}Choose country\u{201D} got no answer") == true)
        kiosk.advance(38)
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m7", modal: country))
        #expect(
            kiosk.model.banner
                == "This opened from the tap on \u{201C}Choose country\u{201D} 47 s ago: the host read it only once it "
                + "was back. Cancel it if it is not yours.")
        #expect(kiosk.model.current?.id == "m7")
    }

    @Test func aDialogLongAfterTheHostIsBackIsNotTiedToAnOldTap() {
        var kiosk = Kiosk()
        kiosk.receive(.welcome(session: "s1", resumed: false, retentionSeconds: 60))
        kiosk.receive(.controls(seq: kiosk.nextSeq(), items: [ControlItem(id: "country", title: "Choose country")]))
        _ = kiosk.press(.character("1"))
        kiosk.advance(9)
        kiosk.drop()
        kiosk.advance(5)
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.advance(30)
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m8", modal: country))
        #expect(kiosk.model.banner?.contains("This opened from the tap") != true)
    }
}
