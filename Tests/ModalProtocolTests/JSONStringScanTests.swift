import RemoteModalProtocol
import Testing

/// The string scanner reads eight bytes at a time until one of them is special: an escape,
/// the closing quote or a control character must be seen at every position of a word.
@Suite("JSON strings: the word-at-a-time scan")
struct JSONStringScanTests {
    @Test(arguments: 0..<20)
    func anEscapeOrAControlCharacterIsSeenAtEveryPosition(position: Int) throws {
        let before = String(repeating: "a", count: position)
        let after = String(repeating: "b", count: 19 - position)
        let parser = JSONParser()
        #expect(try parser.parse("\"\(before)\\n\(after)\"") == .string(before + "\n" + after))
        #expect(try parser.parse("\"\(before)\\\"\(after)\"") == .string(before + "\"" + after))
        #expect(try parser.parse("[\"\(before)\",\"\(after)\"]") == .array([.string(before), .string(after)]))
        for control in ["\u{0}", "\u{1F}", "\t", "\n"] {
            #expect(throws: JSONParseError.self) { try parser.parse("\"\(before)\(control)\(after)\"") }
        }
        // Bytes at or above 0x20 and 0x80 (UTF-8) next to the special ones are plain text.
        #expect(try parser.parse("\"\(before) ~é#!\(after)\"") == .string(before + " ~é#!" + after))
        #expect(throws: JSONParseError.self) { try parser.parse("\"\(before)\(after)") }
    }

    @Test func aLongBase64StringIsTakenWhole() throws {
        let data = String(repeating: "QUJD+/==", count: 5_462)
        let message = try ClientMessage.decode(
            "{\"type\":\"upload\",\"id\":\"m1\",\"file\":0,\"name\":\"a\",\"mimeType\":\"x\",\"size\":1,\"offset\":0,"
                + "\"data\":\"\(data)\",\"last\":false}")
        guard case .upload(let chunk) = message else {
            Issue.record("not an upload: \(message)")
            return
        }
        #expect(chunk.data == data)
    }
}
