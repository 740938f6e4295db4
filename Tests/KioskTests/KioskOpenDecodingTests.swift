import Foundation
import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol
import Testing

/// The kiosk with a newer host, through the client core: what it does not know neither stops
/// it nor leaves a modal up (docs/protocol.md: growable codes are open).
@Suite("Kiosk and a newer host: unknown values and types")
struct KioskOpenDecodingTests {
    @Test func aDismissWithAReasonItDoesNotKnowTakesTheModalDown() {
        var kiosk = welcomed(signIn)
        #expect(kiosk.model.modals.map(\.form.id) == ["m1"])
        kiosk.receive(raw: #"{"type":"dismiss","seq":3,"id":"m1","reason":"migrated"}"#)
        #expect(kiosk.model.modals.isEmpty)
    }

    @Test func aStatusOfALevelItDoesNotKnowIsShown() {
        var kiosk = welcomed(signIn)
        kiosk.receive(raw: #"{"type":"status","seq":3,"level":"warning","text":"careful"}"#)
        #expect(kiosk.model.notices.last?.text == "careful")
    }

    @Test func aKindItDoesNotKnowIsAnsweredUnsupportedAndTheOpenModalStays() {
        var kiosk = welcomed(signIn)
        kiosk.receive(raw: #"{"type":"present","seq":3,"id":"m2","modal":{"kind":"hologram"}}"#)
        #expect(kiosk.sent.last == .failure(id: "m2", code: .unsupported, message: "this client cannot show it"))
        #expect(kiosk.model.modals.map(\.form.id) == ["m1"])
    }

    @Test func theEndOfAResumeAndUnknownTypesChangeNothing() {
        var kiosk = welcomed(signIn)
        let before = kiosk.model.modals.map(\.form.id)
        let sent = kiosk.sent.count
        kiosk.receive(raw: #"{"type":"resumed","seq":3}"#)
        kiosk.receive(raw: #"{"type":"weather","seq":4,"sky":"blue"}"#)
        #expect(kiosk.model.modals.map(\.form.id) == before)
        #expect(kiosk.sent.count == sent)
        #expect(kiosk.machine.isConnected)
    }
}
