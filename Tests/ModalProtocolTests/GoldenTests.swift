import RemoteModalProtocol
import Testing

let signInAlert = ModalDescription.alert(
    title: "Sign in", message: "Please sign in",
    textFields: [
        TextFieldSpec(kind: .email, placeholder: "e-mail"),
        TextFieldSpec(kind: .password, placeholder: "password"),
    ],
    actions: [
        ActionSpec(title: "Cancel", style: .cancel), ActionSpec(title: "Sign In", enabled: false, preferred: true),
    ])

/// A mail with every optional field: HTML body, sending address, an attachment.
let invoiceMail = ModalDescription.mailComposer(
    to: ["support@example.com"], cc: [], bcc: [], subject: "Your invoice",
    body: "<p>Hello &amp; welcome,</p><p>see <a href=\"https://example.com/terms\">our terms</a>.</p>", isHTML: true,
    options: MailOptions(
        from: "billing@example.com",
        attachments: [
            MailAttachment(name: "invoice.txt", mimeType: "text/plain", base64: "SW52b2ljZSAxMjM0OiAxMiBFVVIK")
        ]))

let greetingMessage = ModalDescription.messageComposer(
    recipients: ["0639981337"], subject: "Greetings", body: "Hello World!")

struct HostGolden: Sendable, CustomTestStringConvertible {
    let name: String
    let message: HostMessage
    var testDescription: String { name }

    static let all: [HostGolden] = [
        HostGolden(
            name: "host.welcome",
            message: .welcome(session: "q3J0dW5uZWxzLWFyZS1mdW4", resumed: false, retentionSeconds: 60)),
        HostGolden(name: "host.present.alert", message: .present(seq: 7, id: "m12", modal: signInAlert)),
        HostGolden(
            name: "host.present.alert.configured",
            message: .present(
                seq: 7, id: "m12",
                modal: .alert(
                    title: "Verify", message: nil,
                    textFields: [
                        TextFieldSpec(
                            kind: .plain, placeholder: "code", text: nil, keyboard: .numeric,
                            autocapitalization: TextFieldAutocapitalization.none, contentType: "one-time-code",
                            isSecureTextEntry: false),
                        TextFieldSpec(kind: .plain, placeholder: "PIN", isSecureTextEntry: true),
                    ],
                    actions: [ActionSpec(title: "OK", preferred: true)]))),
        HostGolden(
            name: "host.present.actionSheet",
            message: .present(
                seq: 8, id: "m13",
                modal: .actionSheet(
                    title: "Contact us", message: nil, source: "contact",
                    actions: [
                        ActionSpec(title: "Mail"), ActionSpec(title: "Message"),
                        ActionSpec(title: "Cancel", style: .cancel),
                    ]))),
        HostGolden(
            name: "host.present.webAuthentication",
            message: .present(
                seq: 9, id: "m14",
                modal: .webAuthentication(
                    url: "https://idp.example/authorize?state=s1",
                    callbackURL: "http://127.0.0.1:8080/auth/callback/NONCE", callbackURLScheme: nil))),
        HostGolden(
            name: "host.present.mailComposer",
            message: .present(
                seq: 10, id: "m15",
                modal: .mailComposer(
                    to: ["support@example.com"], cc: [], bcc: [], subject: "Hello", body: "Hello World!", isHTML: false)
            )),
        HostGolden(
            name: "host.present.mailComposer.attachments", message: .present(seq: 10, id: "m15", modal: invoiceMail)),
        HostGolden(
            name: "host.present.photoPicker.prompt",
            message: .present(
                seq: 12, id: "m17",
                modal: .photoPicker(
                    selectionLimit: 0, filter: ["image", "video"], maxBytes: 10_485_760, prompt: "Photos of the damage"),
                uploads: UploadOffer(window: 8))),
        HostGolden(
            name: "host.present.mediaPicker.prompt",
            message: .present(
                seq: 13, id: "m18",
                modal: .mediaPicker(
                    types: ["audio"], allowsMultiple: false, maxBytes: 10_485_760, prompt: "A voice message"),
                uploads: UploadOffer(window: 8))),
        HostGolden(
            name: "host.present.webAuthentication.configured",
            message: .present(
                seq: 9, id: "m14",
                modal: .webAuthentication(
                    url: "https://idp.example/authorize?state=s1", callbackURL: nil, callbackURLScheme: "myapp",
                    options: WebAuthenticationOptions(
                        prefersEphemeralWebBrowserSession: true,
                        additionalHeaderFields: ["X-Tenant": "acme", "Accept-Language": "fr"])))),
        HostGolden(
            name: "host.present.messageComposer",
            message: .present(
                seq: 11, id: "m16",
                modal: .messageComposer(recipients: ["0639981337"], subject: nil, body: "Hello World!"))),
        HostGolden(
            name: "host.present.photoPicker",
            message: .present(
                seq: 12, id: "m17", modal: .photoPicker(selectionLimit: 3, filter: ["image"], maxBytes: 10_485_760),
                uploads: UploadOffer(window: 8))),
        HostGolden(
            name: "host.present.photoPicker.resumed",
            message: .present(
                seq: 31, id: "m17", modal: .photoPicker(selectionLimit: 3, filter: ["image"], maxBytes: 10_485_760),
                uploads: UploadOffer(
                    window: 8, received: [ReceivedFile(file: 0, bytes: 120_034), ReceivedFile(file: 1, bytes: 65_536)]))
        ),
        HostGolden(name: "host.uploadAck", message: .uploadAck(seq: 30, id: "m17", file: 1, received: 65_536)),
        HostGolden(
            name: "host.present.mediaPicker",
            message: .present(
                seq: 13, id: "m18", modal: .mediaPicker(types: ["audio"], allowsMultiple: true, maxBytes: 10_485_760),
                uploads: UploadOffer(window: 8))),
        HostGolden(
            name: "host.present.custom",
            message: .present(
                seq: 14, id: "m19", modal: .custom(name: "signature", payload: ["prompt": "Sign here", "width": 400]))),
        HostGolden(name: "host.dismiss", message: .dismiss(seq: 9, id: "m12", reason: .resolved)),
        HostGolden(name: "host.update", message: .update(seq: 8, id: "m12", actions: [true, false])),
        HostGolden(
            name: "host.controls", message: .controls(seq: 3, items: [ControlItem(id: "signIn", title: "Sign in")])),
        HostGolden(
            name: "host.status", message: .status(seq: 11, level: .success, text: "Signed in as ann@example.com")),
        HostGolden(
            name: "host.error",
            message: .error(seq: 4, ProtocolError(.badMessage, "field 'id' is missing", ref: "result"))),
        HostGolden(
            name: "host.error.beforeWelcome",
            message: .error(seq: nil, ProtocolError(.helloRequired, "send hello first", ref: "event"))),
        HostGolden(
            name: "host.error.upload",
            message: .error(
                seq: 33,
                ProtocolError(
                    .uploadInvalid,
                    "offset 0 does not continue file 1: the host holds 65536 bytes; send from offset 65536",
                    ref: "upload", id: "m17", file: 1, held: 65536))),
        HostGolden(
            name: "host.error.result",
            message: .error(
                seq: 13,
                ProtocolError(
                    .actionDisabled, "action 1 is disabled for these text fields (its rule refuses them)",
                    ref: "result", id: "m12"))),
        HostGolden(name: "host.resumed", message: .resumed(seq: 12)),
        HostGolden(
            name: "host.welcome.heartbeat",
            message: .welcome(
                session: "q3J0dW5uZWxzLWFyZS1mdW4", resumed: false, retentionSeconds: 60, heartbeat: .standard)),
        HostGolden(
            name: "host.welcome.binaryUploads",
            message: .welcome(
                session: "q3J0dW5uZWxzLWFyZS1mdW4", resumed: false, retentionSeconds: 60, heartbeat: .standard,
                binaryUploads: true)),
        HostGolden(name: "host.pong", message: .pong(id: 7)),
    ]
}

struct ClientGolden: Sendable, CustomTestStringConvertible {
    let name: String
    let message: ClientMessage
    var testDescription: String { name }

    static let all: [ClientGolden] = [
        ClientGolden(
            name: "client.hello",
            message: .hello(
                Hello(
                    client: ClientDescription(kind: "browser", name: "lobby-1", group: "lobby"),
                    capabilities: [
                        "alert", "actionSheet", "webAuthentication", "mailComposer", "messageComposer", "photoPicker",
                        "mediaPicker", "custom:signature",
                    ], token: "optional access token", resumeSession: "previous session id"))),
        ClientGolden(
            name: "client.result.alert",
            message: .result(id: "m12", value: ["action": 1, "textFields": ["ann@example.com", "secret"]])),
        ClientGolden(
            name: "client.result.photoPicker",
            message: .result(
                id: "m13",
                value: [
                    "items": [
                        [
                            "name": "cat.png", "mimeType": "image/png", "size": 120034,
                            "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                        ]
                    ]
                ])),
        ClientGolden(
            name: "client.result.mailComposer",
            message: .result(
                id: "m15",
                value: invoiceMail.resultValue(
                    .mail(
                        status: .sent, to: ["support@example.com"], cc: [], bcc: [], subject: "Your invoice",
                        body: "Thanks", from: "billing@example.com", attachments: ["invoice.txt"])))),
        ClientGolden(
            name: "client.result.messageComposer",
            message: .result(
                id: "m16",
                value: greetingMessage.resultValue(
                    .message(status: .sent, recipients: ["0639981337"], body: "Hello World!", subject: "Greetings")))),
        ClientGolden(name: "client.failure", message: .failure(id: "m12", code: .cancelled, message: "optional text")),
        ClientGolden(name: "client.input", message: .input(id: "m12", textFields: ["ann@example.com", ""])),
        ClientGolden(
            name: "client.upload",
            message: .upload(
                UploadChunk(
                    id: "m13", file: 0, name: "cat.png", mimeType: "image/png", size: 120034, offset: 0,
                    data: "aGVsbG8=",
                    last: false))),
        ClientGolden(name: "client.event", message: .event(control: "signIn")),
        ClientGolden(name: "client.ping", message: .ping(id: 7)),
    ]
}

@Suite("Golden fixtures shared with the browser and kiosk clients")
struct GoldenTests {
    @Test("the host encodes each message exactly as its fixture", arguments: HostGolden.all)
    func hostEncoding(_ golden: HostGolden) {
        #expect(golden.message.encode() == fixture(golden.name))
    }

    @Test("clients decode each host fixture back to the same message", arguments: HostGolden.all)
    func hostDecoding(_ golden: HostGolden) throws {
        #expect(try HostMessage.decode(fixture(golden.name)) == golden.message)
    }

    @Test("the host decodes each client fixture", arguments: ClientGolden.all)
    func clientDecoding(_ golden: ClientGolden) throws {
        #expect(try ClientMessage.decode(fixture(golden.name)) == golden.message)
    }

    @Test("client encoding matches the fixture", arguments: ClientGolden.all)
    func clientEncoding(_ golden: ClientGolden) {
        #expect(golden.message.encode() == fixture(golden.name))
    }
}
