import Foundation
import RemoteModalCrypto
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import RemoteModalTransport
import Testing

struct Signature: CustomModal {
    struct Payload: Encodable, Sendable { let prompt: String }
    struct Result: Decodable, Sendable, Equatable { let name: String }
    static let name = "signature"
}

func upload(_ client: TestClientLike, _ id: String, file: Int, name: String, _ data: [UInt8], chunk: Int = 32 * 1024) {
    var offset = 0
    repeat {
        let part = Array(data[offset..<min(offset + chunk, data.count)])
        client.send(
            .upload(
                UploadChunk(
                    id: id, file: file, name: name, mimeType: "image/png", size: data.count, offset: offset,
                    data: Data(part).base64EncodedString(), last: offset + chunk >= data.count)))
        offset += chunk
    } while offset < data.count
}

typealias TestClientLike = RemoteModalTestSupport.TestClient

/// `bytes` with their first eight made a PNG signature: a photo picker judges a file by
/// its bytes, and these stand for a picked image.
func png(_ bytes: [UInt8]) -> [UInt8] {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    var bytes = bytes
    for index in 0..<min(bytes.count, signature.count) { bytes[index] = signature[index] }
    return bytes
}

func item(_ name: String, _ data: [UInt8]) -> JSONValue {
    [
        "name": .string(name), "mimeType": "image/png", "size": .number(Double(data.count)),
        "sha256": .string(SHA256.hex(data)),
    ]
}

@Suite("Composers, pickers, web authentication and custom modals")
struct KindsTests {
    @Test func mailComposerResultCarriesTheEditedMail() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["mailComposer"])
        let outcome = Outcome<MailComposeResult>()
        _ = RemoteModal.mailComposer(presenter: .session(harness.session(of: client))) {
            $0.to = ["support@example.com"]
            $0.subject = "Hello"
        }.asObservable().subscribe(outcome.observer())
        harness.settle()
        client.send(
            .result(id: "m1", value: ["status": "saved", "mail": ["to": ["a@b.c"], "subject": "Edited", "body": "x"]]))
        harness.settle()
        #expect(outcome.elements.first?.status == .saved)
        #expect(outcome.elements.first?.mail.to == ["a@b.c"])
        #expect(outcome.elements.first?.mail.subject == "Edited")
    }

    @Test func composersAreUnsupportedWithoutTheCapability() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["alert"])
        let outcome = Outcome<MessageComposeResult>()
        _ = RemoteModal.messageComposer(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        #expect(outcome.error == .unsupported)
    }

    @Test func deniedAndFailedFailures() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let denied = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(denied.observer())
        harness.settle()
        client.send(.failure(id: "m1", code: .denied, message: "no photo access"))
        harness.settle()
        #expect(denied.error == .denied("no photo access"))
    }

    @Test func pickerDeliversCheckedFilesInMemoryAndSpooled() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) { $0.selectionLimit = 2 }
            .asObservable().subscribe(outcome.observer())
        harness.settle()
        let small = png([UInt8](repeating: 7, count: 1_000))
        let large = png((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        upload(client, "m1", file: 0, name: "small.png", small)
        upload(client, "m1", file: 1, name: "large.png", large)
        client.send(.result(id: "m1", value: ["items": [item("small.png", small), item("large.png", large)]]))
        harness.settle()
        #expect(client.errors.isEmpty)
        let files = outcome.elements.first ?? []
        #expect(files.map(\.name) == ["small.png", "large.png"])
        #expect(files.first?.data == Data(small))
        let spooled = try #require(files.last?.fileURL)
        #expect(try files.last?.contents() == Data(large))
        #expect(FileManager.default.fileExists(atPath: spooled.path))
        _ = outcome
    }

    @Test func aDroppedUploadRestartsAtOffsetZeroAndNothingHalfReceivedArrives() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        let data = png((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        // The first 32 KiB arrive, then the connection drops.
        client.send(
            .upload(
                UploadChunk(
                    id: "m1", file: 0, name: "a.png", mimeType: "image/png", size: data.count, offset: 0,
                    data: Data(data[0..<32_768]).base64EncodedString(), last: false)))
        harness.settle()
        client.disconnect()
        harness.settle()
        let back = harness.connect(capabilities: ["photoPicker"], resume: client.session)
        // A result now, before the file is complete, is refused.
        back.send(.result(id: "m1", value: ["items": [item("a.png", data)]]))
        harness.settle()
        #expect(back.errors == [.uploadInvalid])
        upload(back, "m1", file: 0, name: "a.png", data)
        back.send(.result(id: "m1", value: ["items": [item("a.png", data)]]))
        harness.settle()
        #expect(outcome.elements.first?.first?.size == data.count)
        #expect(try outcome.elements.first?.first?.contents() == Data(data))
    }

    @Test(arguments: ["gap", "overrun", "notBase64", "bigChunk", "overMax", "wrongSize"])
    func uploadViolations(kind: String) {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) { $0.maxBytes = 100_000 }
            .asObservable().subscribe(outcome.observer())
        harness.settle()
        let ok = Data([1, 2, 3]).base64EncodedString()
        func chunk(size: Int = 10, offset: Int = 0, data: String = ok, last: Bool = false) -> ClientMessage {
            .upload(
                UploadChunk(
                    id: "m1", file: 0, name: "a.png", mimeType: "image/png", size: size, offset: offset, data: data,
                    last: last))
        }
        switch kind {
        case "gap":
            client.send(chunk())
            client.send(chunk(offset: 5))
        case "overrun": client.send(chunk(size: 2))
        case "notBase64": client.send(chunk(data: "%%%"))
        case "bigChunk": client.send(chunk(size: 50_000, data: Data(count: 40_000).base64EncodedString()))
        case "overMax": client.send(chunk(size: 200_000))
        default:
            client.send(chunk())
            client.send(chunk(size: 11, offset: 3))
        }
        harness.settle()
        #expect(client.errors.last == .uploadInvalid)
        #expect(!outcome.finished)
    }

    /// A full chunk and one byte more have the same base64 length (43,692 characters): the
    /// decoded count decides. Padding inside the text is not base64 (Foundation took `YQ=a`).
    @Test func aFullChunkIsHeldAndOneByteMoreOrMisplacedPaddingIsRefused() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) {
            $0.maxBytes = 100_000
            $0.selectionLimit = 2
        }
        .asObservable().subscribe(outcome.observer())
        harness.settle()
        func send(file: Int, size: Int, data: String) {
            client.send(
                .upload(
                    UploadChunk(
                        id: "m1", file: file, name: "f\(file).png", mimeType: "image/png", size: size, offset: 0,
                        data: data, last: false)))
            harness.settle()
        }
        func lastError() -> String? {
            guard case .error(_, let error) = client.received.last else { return nil }
            return error.message
        }
        let full = Data(png([UInt8](repeating: 7, count: 32_768))).base64EncodedString()
        let over = Data(png([UInt8](repeating: 7, count: 32_769))).base64EncodedString()
        #expect(full.utf8.count == over.utf8.count)
        send(file: 0, size: 50_000, data: full)
        #expect(client.errors.isEmpty)
        send(file: 1, size: 50_000, data: over)
        #expect(lastError() == "a chunk carries at most 32 KiB")
        send(file: 1, size: 50_000, data: "YQ=a")
        #expect(lastError() == "field 'data' is not base64")
        send(file: 1, size: 50_000, data: "====")
        #expect(lastError() == "field 'data' is not base64")
        #expect(client.errors == [.uploadInvalid, .uploadInvalid, .uploadInvalid])
        #expect(!outcome.finished)
    }

    @Test func customModalDecodesOrRefusesAndStaysPending() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["custom:signature"])
        let outcome = Outcome<Signature.Result>()
        _ = RemoteModal.custom(
            Signature.self, payload: .init(prompt: "Sign here"), presenter: .session(harness.session(of: client))
        ).asObservable().subscribe(outcome.observer())
        harness.settle()
        #expect(client.presents.first?.modal == .custom(name: "signature", payload: ["prompt": "Sign here"]))
        client.send(.result(id: "m1", value: ["nom": "Ann"]))
        harness.settle()
        #expect(client.errors == [.badMessage])
        #expect(!outcome.finished)
        client.send(.result(id: "m1", value: ["name": "Ann"]))
        harness.settle()
        #expect(outcome.elements == [Signature.Result(name: "Ann")])
    }

    @Test func customModalNeedsItsCapability() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["custom:other"])
        let outcome = Outcome<Signature.Result>()
        _ = RemoteModal.custom(
            Signature.self, payload: .init(prompt: "x"), presenter: .session(harness.session(of: client))
        ).asObservable().subscribe(outcome.observer())
        harness.settle()
        #expect(outcome.error == .unsupported)
    }

    @Test func nativeWebAuthenticationResolvesWithTheSchemeURL() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["webAuthentication"])
        let outcome = Outcome<URL>()
        _ = RemoteModal.webAuthenticationSession(
            presenter: .session(harness.session(of: client)), url: URL(string: "https://idp.example/authorize")!,
            callbackURLScheme: "myapp"
        ).asObservable().subscribe(outcome.observer())
        harness.settle()
        client.send(.result(id: "m1", value: ["url": "https://evil.example/cb"]))
        harness.settle()
        #expect(client.errors == [.badMessage])
        client.send(.result(id: "m1", value: ["url": "myapp://cb?code=42"]))
        harness.settle()
        #expect(outcome.elements == [URL(string: "myapp://cb?code=42")!])
    }
}
