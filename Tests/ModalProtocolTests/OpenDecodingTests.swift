import RemoteModalProtocol
import Testing

/// A message from a newer host: unknown fields everywhere, unknown growable values. The
/// client's decoder (the kiosk's) must take each, never refuse it.
@Suite("Open decoding: a client takes what a newer host sends, one test per message type")
struct OpenDecodingTests {
    private let future = #""future":{"v":2,"list":[1,"x",null]},"x-extra":"ignored""#

    private func decode(_ text: String) throws -> HostMessage { try HostMessage.decode(text) }

    @Test func welcome() throws {
        let message = try decode(
            #"{"type":"welcome","protocol":1,"session":"s1","resumed":true,"retentionSeconds":60,"#
                + future + "}")
        #expect(message == .welcome(session: "s1", resumed: true, retentionSeconds: 60))
    }

    @Test func present() throws {
        let modal =
            #"{"kind":"alert","title":"T","mood":"calm","textFields":[{"kind":"pin","secure":true,"hint":"x"}],"#
            + #""actions":[{"title":"Go","style":"primary","enabled":true,"preferred":false,"icon":"star"}]}"#
        let message = try decode(
            #"{"type":"present","seq":3,"id":"m1","modal":"# + modal + #","uploadWindow":4,"#
                + #""received":[{"file":0,"bytes":5,"spooled":true}],"# + future + "}")
        guard case .present(3, "m1", .alert(let title, _, let fields, let actions), let uploads) = message else {
            Issue.record("not a present of an alert: \(message)")
            return
        }
        #expect(title == "T")
        // An unknown text field kind is a plain field (masked as `secure` says), an unknown
        // style is `default`.
        #expect(fields.map(\.kind) == [.plain])
        #expect(fields.first?.isSecureTextEntry == true)
        #expect(actions.map(\.style) == [.default])
        #expect(uploads == UploadOffer(window: 4, received: [ReceivedFile(file: 0, bytes: 5)]))
    }

    @Test func presentOfAnUnknownKind() throws {
        let message = try decode(#"{"type":"present","seq":4,"id":"m2","modal":{"kind":"hologram","depth":3}}"#)
        #expect(message == .presentUnknown(seq: 4, id: "m2", kind: "hologram"))
        #expect(message.seq == 4)
        // The known kinds still decode strictly: a broken alert is refused.
        #expect(throws: ProtocolError.self) {
            try decode(#"{"type":"present","seq":4,"id":"m2","modal":{"kind":"alert","actions":"no"}}"#)
        }
    }

    @Test func uploadAck() throws {
        let message = try decode(
            #"{"type":"uploadAck","seq":5,"id":"m1","file":1,"received":65536,"# + future + "}")
        #expect(message == .uploadAck(seq: 5, id: "m1", file: 1, received: 65536))
    }

    @Test func dismissWithAnUnknownReason() throws {
        let message = try decode(#"{"type":"dismiss","seq":6,"id":"m1","reason":"migrated","# + future + "}")
        #expect(message == .dismiss(seq: 6, id: "m1", reason: DismissReason(rawValue: "migrated")))
        guard case .dismiss(_, _, let reason) = message else { return }
        #expect(!reason.isKnown)
        #expect(try decode(#"{"type":"dismiss","seq":6,"id":"m1","reason":"resolved"}"#).seq == 6)
    }

    @Test func update() throws {
        let message = try decode(
            #"{"type":"update","seq":7,"id":"m1","actions":[{"enabled":true,"title":"New"},{"enabled":false}],"#
                + future + "}")
        #expect(message == .update(seq: 7, id: "m1", actions: [true, false]))
    }

    @Test func controlsWithAnUnknownStyle() throws {
        let message = try decode(
            #"{"type":"controls","seq":8,"items":[{"id":"a","title":"A","style":"glow","enabled":true,"busy":false,"badge":3}],"#
                + future + "}")
        #expect(message == .controls(seq: 8, items: [ControlItem(id: "a", title: "A", style: .default)]))
    }

    @Test func statusWithAnUnknownLevel() throws {
        let message = try decode(#"{"type":"status","seq":9,"level":"warning","text":"careful","# + future + "}")
        #expect(message == .status(seq: 9, level: StatusLevel(rawValue: "warning"), text: "careful"))
    }

    @Test func errorWithAnUnknownCodeAndTheNewFields() throws {
        let message = try decode(
            #"{"type":"error","seq":10,"code":"quota_exceeded","message":"m","ref":"upload","id":"m1","file":2,"held":4096,"#
                + future + "}")
        #expect(
            message
                == .error(
                    seq: 10,
                    ProtocolError(
                        ErrorCode(rawValue: "quota_exceeded"), "m", ref: "upload", id: "m1", file: 2, held: 4096)))
        // The encoder writes what it decoded, the new fields after `ref`.
        #expect(
            message.encode()
                == #"{"type":"error","seq":10,"code":"quota_exceeded","message":"m","ref":"upload","id":"m1","file":2,"held":4096}"#
        )
    }

    @Test func resumed() throws {
        let message = try decode(#"{"type":"resumed","seq":11,"# + future + "}")
        #expect(message == .resumed(seq: 11))
        #expect(message.encode() == #"{"type":"resumed","seq":11}"#)
    }

    @Test func aMessageOfAnUnknownType() throws {
        let message = try decode(#"{"type":"weather","seq":12,"sky":"blue"}"#)
        #expect(message == .unknown(type: "weather", seq: 12))
        // Its `seq` counts, so a client records it; one without a seq has none.
        #expect(message.seq == 12)
        #expect(try decode(#"{"type":"weather"}"#) == .unknown(type: "weather", seq: nil))
    }
}
