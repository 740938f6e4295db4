import RemoteModalProtocol
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
            let reused = String(decoding: HostMessage.encodeControls(seq: seq, itemsJSON: json), as: UTF8.self)
            #expect(reused == HostMessage.controls(seq: seq, items: items).encode())
            #expect(HostMessage.controls(seq: seq, items: items).encodeUTF8() == Array(reused.utf8))
            #expect(try HostMessage.decode(reused) == .controls(seq: seq, items: items))
        }
    }
}

@Suite("Parsing shortcuts give what the general path gives")
struct ParserShortcutTests {
    @Test(arguments: [
        "0", "-0", "7", "-7", "123456789012345", "-123456789012345", "1234567890123456", "1.5", "1e3", "-0.25",
        "9007199254740993",
    ])
    func numbersParseAsDouble(text: String) throws {
        let parsed = try JSONParser().parse(text)
        #expect(parsed == .number(Double(text)!))
        let fromBytes = try Array(text.utf8).withUnsafeBufferPointer { try JSONParser().parse(bytes: $0) }
        #expect(fromBytes == parsed)
    }

    @Test func stringsFromBytesAreStillValidated() throws {
        let bytes: [UInt8] = Array("{\"a\":\"".utf8) + [0xFF] + Array("\"}".utf8)
        #expect(throws: JSONParseError.self) {
            _ = try bytes.withUnsafeBufferPointer { try JSONParser().parse(bytes: $0) }
        }
        #expect(try JSONParser().parse("{\"name\":\"Zoë ✓ 🙂\"}") == .object([("name", .string("Zoë ✓ 🙂"))]))
    }
}
