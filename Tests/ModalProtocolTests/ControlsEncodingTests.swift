import ModalProtocol
import Testing

@Suite("Controls encoded once and reused: the same text as encoding the message")
struct ControlsEncodingTests {
    static let lists: [[ControlItem]] = [
        [],
        [ControlItem(id: "signIn", title: "Sign in")],
        [
            ControlItem(id: "signIn", title: "Sign \"in\"\n", style: .destructive, enabled: false, busy: true),
            ControlItem(id: "photo", title: "Ünïcode ✓ \\ path", style: .cancel, enabled: true, busy: false),
        ],
    ]

    @Test(arguments: lists)
    func reusedItemsGiveTheSameText(items: [ControlItem]) throws {
        let json = HostMessage.controlItemsJSON(items)
        for seq in [1, 42, 1_000_000] {
            let reused = HostMessage.encodeControls(seq: seq, itemsJSON: json)
            #expect(reused == HostMessage.controls(seq: seq, items: items).encode())
            #expect(try HostMessage.decode(reused) == .controls(seq: seq, items: items))
        }
    }
}
