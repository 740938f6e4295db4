import RemoteModalProtocol
import Testing

@Suite("Strict decoding: every bad input becomes a typed error naming the field")
struct DecodingTests {
    @Test(
        arguments: [
            ("not json", ErrorCode.badJSON, "invalid literal"),
            ("?", ErrorCode.badJSON, "unexpected character"),
            ("{\"type\":\"result\"", .badJSON, "expected ',' or '}'"),
            ("[1,2]", .badMessage, "a message must be a JSON object"),
            ("{}", .badMessage, "field 'type' is missing"),
            ("{\"type\":3}", .badMessage, "field 'type' must be a string"),
            ("{\"type\":\"launch\"}", .unknownType, "unknown message type 'launch'"),
            ("{\"type\":\"result\",\"value\":{}}", .badMessage, "field 'id' is missing"),
            ("{\"type\":\"result\",\"id\":7,\"value\":{}}", .badMessage, "field 'id' must be a string"),
            (
                "{\"type\":\"failure\",\"id\":\"m1\",\"code\":\"nope\"}", .badMessage,
                "field 'code' must be one of cancelled, unsupported, denied, failed"
            ),
            ("{\"type\":\"hello\",\"protocol\":1.5,\"client\":{}}", .badMessage, "field 'protocol' must be an integer"),
            ("{\"type\":\"hello\",\"protocol\":1}", .badMessage, "field 'client' is missing"),
            (
                "{\"type\":\"input\",\"id\":\"m1\",\"textFields\":[1]}", .badMessage,
                "field 'textFields[0]' must be a string"
            ),
            (
                "{\"type\":\"upload\",\"id\":\"m1\",\"file\":0,\"name\":\"a\",\"mimeType\":\"b\",\"size\":-1,\"offset\":0,\"data\":\"\",\"last\":true}",
                .badMessage, "field 'size' is out of range"
            ),
            ("{\"type\":\"event\",\"control\":1e400}", .badJSON, "number out of range"),
            ("{\"type\":\"event\",\"control\":\"\\ud800\"}", .badJSON, "lone surrogate in \\u escape"),
            ("{\"type\":\"event\",\"control\":\"a\u{01}b\"}", .badJSON, "control character in string"),
        ])
    func badInput(text: String, code: ErrorCode, message: String) {
        #expect {
            _ = try ClientMessage.decode(text)
        } throws: { error in
            guard let error = error as? ProtocolError else { return false }
            return error.code == code && error.message.hasPrefix(message)
        }
    }

    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000)
        let text = "{\"type\":\"result\",\"id\":\"m1\",\"value\":\(deep)}"
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(text) }
    }

    @Test func overlongStringFieldIsRefused() {
        let long = String(repeating: "a", count: 70_000)
        #expect {
            _ = try ClientMessage.decode("{\"type\":\"event\",\"control\":\"\(long)\"}")
        } throws: { ($0 as? ProtocolError)?.message == "field 'control' is too long" }
    }

    @Test func aClientNameOrGroupOverTheLimitIsRefused() throws {
        func hello(name: String, group: String = "g") -> String {
            "{\"type\":\"hello\",\"protocol\":1,\"client\":{\"kind\":\"browser\",\"name\":\"\(name)\",\"group\":\"\(group)\"}}"
        }
        let limit = ClientDescription.maxNameBytes
        _ = try ClientMessage.decode(hello(name: String(repeating: "é", count: limit / 2)))
        #expect {
            _ = try ClientMessage.decode(hello(name: String(repeating: "a", count: 60_000)))
        } throws: { ($0 as? ProtocolError)?.message == "field 'client.name' is too long (at most 256 bytes)" }
        #expect {
            _ = try ClientMessage.decode(hello(name: "ann", group: String(repeating: "é", count: limit / 2 + 1)))
        } throws: { ($0 as? ProtocolError)?.message == "field 'client.group' is too long (at most 256 bytes)" }
    }

    @Test func aClientKindAndCapabilitiesOverTheirLimitsAreRefused() throws {
        func hello(kind: String = "browser", capabilities: [String]) -> String {
            let list = capabilities.map { "\"\($0)\"" }.joined(separator: ",")
            return "{\"type\":\"hello\",\"protocol\":1,\"client\":{\"kind\":\"\(kind)\"},\"capabilities\":[\(list)]}"
        }
        let longest = String(repeating: "c", count: Hello.maxCapabilityBytes)
        let most = Array(repeating: longest, count: Hello.maxCapabilities)
        let kind = String(repeating: "k", count: ClientDescription.maxKindBytes)
        guard case .hello(let accepted) = try ClientMessage.decode(hello(kind: kind, capabilities: most)) else {
            Issue.record("not a hello")
            return
        }
        #expect(accepted.capabilities.count == 32 && accepted.client.kind == kind)
        #expect {
            _ = try ClientMessage.decode(hello(capabilities: most + ["alert"]))
        } throws: { ($0 as? ProtocolError)?.message == "field 'capabilities' has too many entries" }
        #expect {
            _ = try ClientMessage.decode(hello(capabilities: ["alert", longest + "c"]))
        } throws: { ($0 as? ProtocolError)?.message == "field 'capabilities[1]' is too long (at most 64 bytes)" }
        #expect {
            _ = try ClientMessage.decode(hello(kind: kind + "k", capabilities: ["alert"]))
        } throws: {
            ($0 as? ProtocolError)?.code == .badMessage
                && ($0 as? ProtocolError)?.message == "field 'client.kind' is too long (at most 64 bytes)"
        }
    }

    @Test func aResumeCarriesTheLastSeqTheClientProcessed() throws {
        let hello = Hello(
            client: ClientDescription(kind: "browser", name: "ann"), capabilities: ["alert"], resumeSession: "s1",
            resumeLastSeq: 41)
        let encoded = ClientMessage.hello(hello).encode()
        #expect(encoded.contains("\"resume\":{\"session\":\"s1\",\"lastSeq\":41}"))
        #expect(try ClientMessage.decode(encoded) == .hello(hello))
        // Optional: a resume without it decodes as before; a bad one is refused.
        let plain = try ClientMessage.decode(
            "{\"type\":\"hello\",\"protocol\":1,\"client\":{\"name\":\"a\"},\"resume\":{\"session\":\"s1\"}}")
        guard case .hello(let decoded) = plain else { Issue.record("not a hello"); return }
        #expect(decoded.resumeLastSeq == nil && decoded.resumeSession == "s1")
        #expect(throws: ProtocolError.self) {
            _ = try ClientMessage.decode(
                "{\"type\":\"hello\",\"protocol\":1,\"client\":{},\"resume\":{\"session\":\"s\",\"lastSeq\":-1}}")
        }
    }

    @Test func unknownFieldsAreIgnored() throws {
        let message = try ClientMessage.decode("{\"type\":\"event\",\"control\":\"signIn\",\"future\":{\"x\":[1]}}")
        #expect(message == .event(control: "signIn"))
    }

    @Test func escapesAndUnicodeRoundTrip() throws {
        let text = "line\nquote\" backslash\\ tab\t control\u{1} emoji 🎉 é"
        let encoded = ClientMessage.event(control: text).encode()
        #expect(try ClientMessage.decode(encoded) == .event(control: text))
        #expect(
            try ClientMessage.decode("{\"type\":\"event\",\"control\":\"\\ud83c\\udf89\\u00e9\"}")
                == .event(control: "🎉é"))
    }
}

@Suite("Result values are checked against the modal's kind")
struct ResultValidationTests {
    @Test func alertResultNeedsEveryTextFieldAndAnEnabledAction() throws {
        #expect(
            try signInAlert.validateResult(["action": 0, "textFields": ["a", "b"]])
                == .action(index: 0, textFields: ["a", "b"]))
        #expect(throws: ProtocolError.self) { try signInAlert.validateResult(["action": 0, "textFields": ["a"]]) }
        #expect(throws: ProtocolError.self) {
            try signInAlert.validateResult(["action": 2, "textFields": ["a", "b"]])
        }
        #expect(throws: ProtocolError.self) {
            try signInAlert.validateResult(["action": "0", "textFields": ["a", "b"]])
        }
        // "Sign In" starts disabled; it is accepted only once an update enabled it.
        #expect(throws: ProtocolError.self) {
            try signInAlert.validateResult(["action": 1, "textFields": ["a", "b"]])
        }
        #expect(
            try signInAlert.validateResult(["action": 1, "textFields": ["a", "b"]], enabled: [true, true])
                == .action(index: 1, textFields: ["a", "b"]))
    }

    @Test func composerStatusesAreValues() throws {
        let mail = ModalDescription.mailComposer(to: [], cc: [], bcc: [], subject: "", body: "", isHTML: false)
        let answer = try mail.validateResult(["status": "cancelled"])
        #expect(answer == .mail(status: .cancelled, to: [], cc: [], bcc: [], subject: "", body: ""))
        #expect(throws: ProtocolError.self) { try mail.validateResult(["status": "exploded"]) }
    }

    @Test func pickerItemsRespectLimits() throws {
        let picker = ModalDescription.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 100)
        let hash = String(repeating: "a", count: 64)
        let item: JSONValue = ["name": "a.png", "mimeType": "image/png", "size": 50, "sha256": .string(hash)]
        #expect(
            try picker.validateResult(["items": [item]])
                == .picked([PickedItem(name: "a.png", mimeType: "image/png", size: 50, sha256: hash)]))
        #expect(try picker.validateResult(["items": []]) == .picked([]))
        #expect(throws: ProtocolError.self) { try picker.validateResult(["items": [item, item]]) }
        let big: JSONValue = ["name": "a.png", "mimeType": "image/png", "size": 101, "sha256": .string(hash)]
        #expect(throws: ProtocolError.self) { try picker.validateResult(["items": [big]]) }
    }

    @Test func nativeWebAuthenticationMustUseTheScheme() throws {
        let auth = ModalDescription.webAuthentication(url: "https://idp", callbackURL: nil, callbackURLScheme: "myapp")
        #expect(try auth.validateResult(["url": "myapp://cb?code=1"]) == .callbackURL("myapp://cb?code=1"))
        #expect(throws: ProtocolError.self) { try auth.validateResult(["url": "https://evil/cb"]) }
    }
}
