import Foundation
import RemoteModalAction
import RemoteModalCrypto
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

/// Sends one file's first (and only) chunk with a declared type.
private func send(
    _ client: TestClient, _ id: String, file: Int = 0, name: String, type: String, _ bytes: [UInt8]
) {
    client.send(
        .upload(
            UploadChunk(
                id: id, file: file, name: name, mimeType: type, size: bytes.count, offset: 0,
                data: Data(bytes).base64EncodedString(), last: true)))
}

private func errorTexts(_ client: TestClient) -> [String] {
    client.received.compactMap { if case .error(_, let error) = $0 { error.message } else { nil } }
}

private func ackCount(_ client: TestClient) -> Int {
    client.received.filter { if case .uploadAck = $0 { true } else { false } }.count
}

private let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 40)
private let pdf: [UInt8] = Array("%PDF-1.7\n".utf8) + [UInt8](repeating: 1, count: 40)
private let mp3: [UInt8] = Array("ID3".utf8) + [4, 0, 0] + [UInt8](repeating: 2, count: 40)
private let mp4: [UInt8] = [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 3, count: 40)

@Suite("Picker filters are enforced by the host")
struct PickerFilterTests {
    @Test func aPhotoPickerRefusesWhatIsNotAnImageAndSaysSo() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).subscribe { _ in }
        harness.settle()
        send(client, "m1", name: "notes.txt", type: "text/plain", Array("hello".utf8))
        harness.settle()
        #expect(client.errors == [.uploadInvalid])
        #expect(errorTexts(client).last == "only images are accepted here: file 0 ('notes.txt') is text/plain")
        // A PDF named and typed as a PNG: its bytes give it away.
        send(client, "m1", name: "cat.png", type: "image/png", pdf)
        harness.settle()
        #expect(
            errorTexts(client).last
                == "only images are accepted here: file 0 ('cat.png') says image/png but its bytes are a PDF document")
        #expect(ackCount(client) == 0)
        // A real PNG is received.
        send(client, "m1", name: "cat.png", type: "image/png", png)
        harness.settle()
        #expect(ackCount(client) == 1)
        #expect(client.errors.count == 2)
    }

    @Test func aVideoFilterAcceptsVideosOnly() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) {
            $0.filter = ["video"]
            $0.selectionLimit = 0
        }.subscribe { _ in }
        harness.settle()
        send(client, "m1", name: "cat.png", type: "image/png", png)
        send(client, "m1", file: 1, name: "clip.mp4", type: "video/mp4", mp4)
        harness.settle()
        #expect(errorTexts(client) == ["only videos are accepted here: file 0 ('cat.png') is image/png"])
        #expect(ackCount(client) == 1)
    }

    @Test func aMediaPickerForAudioRefusesImagesAndTakesMP3() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["mediaPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.mediaPicker(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        send(client, "m1", name: "cat.png", type: "image/png", png)
        harness.settle()
        #expect(errorTexts(client) == ["only audio is accepted here: file 0 ('cat.png') is image/png"])
        // MP3 bytes claimed as audio but really a video container are refused too.
        send(client, "m1", name: "song.m4a", type: "audio/mp4", mp4)
        harness.settle()
        #expect(ackCount(client) == 1)  // an MP4 container can hold audio only: accepted
        send(client, "m1", name: "song.mp3", type: "audio/mpeg", mp3)
        harness.settle()
        #expect(ackCount(client) == 2)
        client.send(
            .result(
                id: "m1",
                value: [
                    "items": [
                        [
                            "name": "song.mp3", "mimeType": "audio/mpeg", "size": .number(Double(mp3.count)),
                            "sha256": .string(SHA256.hex(mp3)),
                        ]
                    ]
                ]))
        harness.settle()
        #expect(outcome.elements.first?.map(\.name) == ["song.mp3"])
    }

    @Test func anEmptyPhotoFilterTakesImagesAndVideosButNotAudio() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) {
            $0.filter = []
            $0.selectionLimit = 3
        }.subscribe { _ in }
        harness.settle()
        send(client, "m1", name: "a.png", type: "image/png", png)
        send(client, "m1", file: 1, name: "b.mp4", type: "video/mp4", mp4)
        send(client, "m1", file: 2, name: "c.mp3", type: "audio/mpeg", mp3)
        harness.settle()
        #expect(ackCount(client) == 2)
        #expect(errorTexts(client) == ["only images and videos are accepted here: file 2 ('c.mp3') is audio/mpeg"])
    }
}

@Suite("Mail attachments and sending address, message subject, picker prompt, web authentication options")
struct PortedOptionTests {
    @Test func aMailCarriesItsAttachmentsAndFromAndTheResultSaysWhichWereKept() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["mailComposer"])
        let outcome = Outcome<MailComposeResult>()
        let invoice = Data("Invoice 1234: 12 EUR\n".utf8)
        _ = RemoteModal.mailComposer(presenter: .session(harness.session(of: client))) {
            $0.to = ["support@example.com"]
            $0.from = "billing@example.com"
            $0.addAttachmentData(invoice, mimeType: "text/plain", fileName: "invoice.txt")
            $0.addAttachmentData(Data([1, 2, 3]), mimeType: "application/octet-stream", fileName: "extra.bin")
        }.asObservable().subscribe(outcome.observer())
        harness.settle()
        guard case .mailComposer(_, _, _, _, _, _, let options) = client.presents.first?.modal else {
            Issue.record("no mail composer")
            return
        }
        #expect(options.from == "billing@example.com")
        #expect(options.attachments.map(\.name) == ["invoice.txt", "extra.bin"])
        #expect(options.attachments.first?.base64 == invoice.base64EncodedString())
        #expect(options.attachments.map(\.size) == [invoice.count, 3])
        client.send(
            .result(
                id: "m1",
                value: [
                    "status": "sent",
                    "mail": ["subject": "S", "body": "B", "from": "ann@example.com", "attachments": ["invoice.txt"]],
                ]))
        harness.settle()
        let result = try #require(outcome.elements.first)
        #expect(result.mail.from == "ann@example.com")
        #expect(result.mail.attachments.map(\.fileName) == ["invoice.txt"])
        #expect(result.mail.attachments.first?.data == invoice)
    }

    @Test func anOlderClientThatSaysNothingKeepsEveryAttachment() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["mailComposer"])
        let outcome = Outcome<MailComposeResult>()
        _ = RemoteModal.mailComposer(presenter: .session(harness.session(of: client))) {
            $0.addAttachmentData(Data([9]), mimeType: "application/octet-stream", fileName: "a.bin")
        }.asObservable().subscribe(outcome.observer())
        harness.settle()
        client.send(.result(id: "m1", value: ["status": "saved", "mail": ["body": "x"]]))
        harness.settle()
        #expect(try #require(outcome.elements.first).mail.attachments.map(\.fileName) == ["a.bin"])
    }

    @Test func attachmentsPastTheLimitAreRefusedBeforeAnythingIsSent() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["mailComposer"])
        let outcome = Outcome<MailComposeResult>()
        _ = RemoteModal.mailComposer(presenter: .session(harness.session(of: client))) {
            $0.addAttachmentData(Data(count: 500 * 1_024), mimeType: "image/png", fileName: "a.png")
            $0.addAttachmentData(Data(count: 300 * 1_024), mimeType: "image/png", fileName: "b.png")
        }.asObservable().subscribe(outcome.observer())
        harness.settle()
        #expect(client.presents.isEmpty)
        #expect(
            outcome.error
                == .invalidConfiguration(
                    "the mail's attachments add up to 819200 bytes; at most 786432 (768 KiB) can be sent to a client"))
        let same = Outcome<MailComposeResult>()
        _ = RemoteModal.mailComposer(presenter: .session(harness.session(of: client))) {
            $0.addAttachmentData(Data([1]), mimeType: "text/plain", fileName: "a.txt")
            $0.addAttachmentData(Data([2]), mimeType: "text/plain", fileName: "a.txt")
        }.asObservable().subscribe(same.observer())
        harness.settle()
        #expect(same.error == .invalidConfiguration("the mail's attachments need distinct, non-empty file names"))
    }

    @Test func theMessageSubjectComesBackAsEdited() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["messageComposer"])
        let edited = Outcome<MessageComposeResult>()
        _ = RemoteModal.messageComposer(presenter: .session(harness.session(of: client))) {
            $0.subject = "Hello"
            $0.body = "B"
        }.asObservable().subscribe(edited.observer())
        harness.settle()
        client.send(
            .result(
                id: "m1", value: ["status": "sent", "message": ["recipients": ["1"], "body": "B2", "subject": "Hi!"]]))
        harness.settle()
        #expect(
            try #require(edited.elements.first)
                == MessageComposeResult(status: .sent, recipients: ["1"], body: "B2", subject: "Hi!"))
        // A client that does not report it: the subject as presented.
        let kept = Outcome<MessageComposeResult>()
        _ = RemoteModal.messageComposer(presenter: .session(harness.session(of: client))) { $0.subject = "Hello" }
            .asObservable().subscribe(kept.observer())
        harness.settle()
        client.send(.result(id: "m2", value: ["status": "cancelled"]))
        harness.settle()
        #expect(try #require(kept.elements.first).subject == "Hello")
    }

    @Test func pickersCarryTheirPrompt() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker", "mediaPicker"])
        let presenter = Presenter.session(harness.session(of: client))
        _ = RemoteModal.photoPicker(presenter: presenter) { $0.prompt = "Photos of the damage" }.subscribe { _ in }
        _ = RemoteModal.mediaPicker(presenter: presenter) { $0.prompt = "A voice message" }.subscribe { _ in }
        harness.settle()
        let prompts = client.presents.map { present -> String? in
            switch present.modal {
            case .photoPicker(_, _, _, let prompt), .mediaPicker(_, _, _, let prompt): prompt
            default: nil
            }
        }
        #expect(prompts == ["Photos of the damage", "A voice message"])
    }

    @Test func webAuthenticationOptionsGoOnTheWireAndBadHeadersAreRefused() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["webAuthentication"])
        let presenter = Presenter.session(harness.session(of: client))
        let url = try #require(URL(string: "https://idp.example/authorize"))
        _ = RemoteModal.webAuthenticationSession(presenter: presenter, url: url, callbackURLScheme: "myapp") {
            $0.prefersEphemeralWebBrowserSession = true
            $0.additionalHeaderFields = ["X-Tenant": "acme"]
        }.subscribe { _ in }
        harness.settle()
        guard case .webAuthentication(_, _, _, let options) = client.presents.first?.modal else {
            Issue.record("no web authentication")
            return
        }
        #expect(
            options
                == WebAuthenticationOptions(
                    prefersEphemeralWebBrowserSession: true, additionalHeaderFields: ["X-Tenant": "acme"]))
        let refused = Outcome<URL>()
        _ = RemoteModal.webAuthenticationSession(presenter: presenter, url: url, callbackURLScheme: "myapp") {
            $0.additionalHeaderFields = ["X-Evil": "a\r\nSet-Cookie: x=1"]
        }.asObservable().subscribe(refused.observer())
        harness.settle()
        #expect(refused.error == .invalidConfiguration("the value of header field 'X-Evil' holds a line break"))
        #expect(client.presents.count == 1)
    }
}

@Suite("Presenter.current: a session's flow presents there without naming it")
struct DefaultPresenterTests {
    /// A control whose action presents an alert with no presenter.
    private func installAsk(on session: Session, answers: Outcome<String>) {
        session.control("ask", title: "Ask").bind(
            to: ButtonAction {
                RemoteModal.alert(title: "Which?", actions: [.default(title: "A", mapTo: "A")])
                    .do(onNext: { answers.observer().onNext("\(session.client.name): \($0)") })
                    .map { _ in () }
            })
    }

    @Test func aTappedControlsModalGoesToTheSessionThatTapped() {
        let harness = HostHarness()
        let ann = harness.connect(name: "ann")
        let bob = harness.connect(name: "bob")
        let answers = Outcome<String>()
        installAsk(on: harness.session(of: ann), answers: answers)
        installAsk(on: harness.session(of: bob), answers: answers)
        harness.settle()
        // Both tap before the host runs either tap: each gets its own alert.
        ann.send(.event(control: "ask"))
        bob.send(.event(control: "ask"))
        harness.settle()
        #expect(ann.presents.map(\.modal.title) == ["Which?"])
        #expect(bob.presents.map(\.modal.title) == ["Which?"])
        bob.send(.result(id: "m1", value: ["action": 0]))
        ann.send(.result(id: "m1", value: ["action": 0]))
        harness.settle()
        #expect(answers.elements == ["bob: A", "ann: A"])
    }

    @Test func theSessionsHandlerAndAnAnswersFlowPresentToTheirSession() {
        let harness = HostHarness()
        let subscription = harness.host.sessions.subscribe(onNext: { _ in
            _ = RemoteModal.alert(
                title: "Welcome",
                actions: [
                    DialogAction<Void>.default(
                        title: "Next",
                        flatMapTo: RemoteModal.alert(title: "Second", actions: [.default(title: "OK", mapTo: ())]))
                ]
            ).subscribe(onNext: { _ in })
        })
        defer { subscription.dispose() }
        let ann = harness.connect(name: "ann")
        harness.settle()
        #expect(ann.presents.map(\.modal.title) == ["Welcome"])
        ann.send(.result(id: "m1", value: ["action": 0]))
        harness.settle()
        #expect(ann.presents.map(\.modal.title) == ["Welcome", "Second"])
    }

    @Test func outsideAnySessionsFlowItFailsWithMissingPresenter() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<Void>()
        _ = RemoteModal.alert(title: "Nobody", actions: [.default(title: "OK", mapTo: ())]).subscribe(
            outcome.observer())
        harness.settle()
        #expect(outcome.error == .missingPresenter)
        #expect("\(RemoteModalError.missingPresenter)".contains("Presenter.current"))
        #expect(client.presents.isEmpty)
        // With the session made current explicitly (a flow that left the host's callbacks).
        let session = harness.session(of: client)
        Presenter.withCurrentSession(session) {
            _ = RemoteModal.alert(title: "Later", actions: [.default(title: "OK", mapTo: ())]).subscribe { _ in }
        }
        harness.settle()
        #expect(client.presents.map(\.modal.title) == ["Later"])
    }
}
