import Foundation
import RemoteModalKiosk
import RemoteModalProtocol
import Testing

/// The kiosk with a newer host: what it does not know neither stops it nor leaves a modal up.
@Suite("Kiosk and a newer host: unknown values and types")
struct KioskOpenDecodingTests {
    private func opened() -> KioskModel {
        var model = KioskModel(name: "lobby-1", group: nil)
        model.receive(.welcome(session: "s", resumed: false, retentionSeconds: 60))
        model.receive(.present(seq: 1, id: "m1", modal: signIn))
        return model
    }

    @Test func aDismissWithAReasonItDoesNotKnowTakesTheModalDown() throws {
        var model = opened()
        #expect(model.modals.map(\.id) == ["m1"])
        model.receive(try HostMessage.decode(#"{"type":"dismiss","seq":2,"id":"m1","reason":"migrated"}"#))
        #expect(model.modals.isEmpty)
    }

    @Test func aStatusOfALevelItDoesNotKnowIsShown() throws {
        var model = opened()
        model.receive(try HostMessage.decode(#"{"type":"status","seq":2,"level":"warning","text":"careful"}"#))
        #expect(model.notices.last?.text == "careful")
    }

    @Test func aKindItDoesNotKnowIsAnsweredUnsupported() throws {
        var model = opened()
        let effects = model.receive(
            try HostMessage.decode(#"{"type":"present","seq":2,"id":"m2","modal":{"kind":"hologram"}}"#))
        #expect(
            effects == [
                .send(.failure(id: "m2", code: .unsupported, message: "this kiosk cannot show 'hologram' modals"))
            ])
        #expect(model.modals.map(\.id) == ["m1"])
    }

    @Test func theEndOfAResumeAndUnknownTypesChangeNothing() throws {
        var model = opened()
        let before = model.modals
        #expect(model.receive(try HostMessage.decode(#"{"type":"resumed","seq":2}"#)).isEmpty)
        #expect(model.receive(try HostMessage.decode(#"{"type":"weather","seq":3,"sky":"blue"}"#)).isEmpty)
        #expect(model.modals == before)
    }
}
