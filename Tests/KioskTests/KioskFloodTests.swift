import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol
import Testing

@Suite("Kiosk: a host's flood")
struct KioskFloodTests {
    /// The core dropped an overwhelmed link: the person is told, and after the resume the
    /// modal the host still has is shown again (no second dialog, nothing lost).
    @Test func aDroppedFloodIsSaidAndTheResumeBringsBackWhatStands() {
        var kiosk = welcomed(signIn)
        kiosk.run(kiosk.machine.handle(.overwhelmed(attempt: kiosk.attempt)))
        #expect(kiosk.model.banner == "The host sent messages too fast: the kiosk dropped them and is catching up.")
        #expect(!kiosk.machine.isConnected)
        kiosk.receive(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        kiosk.receive(.present(seq: kiosk.nextSeq(), id: "m1", modal: signIn))
        kiosk.receive(.resumed(seq: kiosk.nextSeq()))
        #expect(kiosk.model.current?.id == "m1")
        #expect(kiosk.model.modals.count == 1)
    }
}
