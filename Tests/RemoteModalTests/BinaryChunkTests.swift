import Foundation
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

/// A file's bytes that start as a PNG does (a picker judges a file by its bytes).
private func png(_ count: Int) -> [UInt8] {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    return (0..<count).map { $0 < signature.count ? signature[$0] : UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
}

/// Sends `data` as binary chunks (docs/protocol.md, section 7, "Binary chunks").
private func uploadBinary(_ client: TestClient, _ id: String, name: String, _ data: [UInt8]) {
    var offset = 0
    repeat {
        let end = min(offset + 32_768, data.count)
        let chunk = UploadChunk(
            id: id, file: 0, name: name, mimeType: "image/png", size: data.count, offset: offset, data: "",
            bytes: Array(data[offset..<end]), last: end == data.count)
        client.sendBinary(chunk.binaryFrame())
        offset = end
    } while offset < data.count
}

private func welcome(_ client: TestClient) -> Bool? {
    for message in client.received {
        if case .welcome(_, _, _, _, let binaryUploads) = message { return binaryUploads }
    }
    return nil
}

private func errorMessages(_ client: TestClient) -> [(code: ErrorCode, message: String)] {
    client.received.compactMap { if case .error(_, let error) = $0 { (error.code, error.message) } else { nil } }
}

@Suite("Binary upload chunks (protocol.md section 7)")
struct BinaryChunkTests {
    @Test func theWelcomeOffersBinaryChunksUnlessTheHostIsToldNotTo() {
        let offering = HostHarness()
        #expect(welcome(offering.connect()) == true)
        let refusing = HostHarness { $0.binaryUploads = false }
        #expect(welcome(refusing.connect()) == false)
    }

    @Test func binaryChunksAreAcknowledgedAndHandOverTheSameBytesAsText() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = harness.presentPhotoPicker(to: client)
        let data = png(100_000)
        uploadBinary(client, "m1", name: "a.png", data)
        harness.settle()
        let acks = client.received.compactMap {
            if case .uploadAck(_, "m1", 0, let received) = $0 { received } else { nil }
        }
        #expect(acks == [32_768, 65_536, 98_304, 100_000])
        #expect(client.errors.isEmpty)
        client.send(.result(id: "m1", value: ["items": [item("a.png", data)]]))
        harness.settle()
        #expect(try outcome.elements.first?.first?.contents() == Data(data))
        #expect(outcome.elements.first?.first?.mimeType == "image/png")
    }

    @Test func aBinaryChunkIsJudgedByTheSameRulesAsAText() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        harness.presentPhotoPicker(to: client)
        // Text bytes named .png: refused for their bytes, as in text.
        let text = Array(String(repeating: "plain words, not a picture ", count: 40).utf8)
        uploadBinary(client, "m1", name: "notes.png", text)
        // Over 32 KiB in one chunk: refused, the bytes held kept.
        let big = UploadChunk(
            id: "m1", file: 0, name: "big.png", mimeType: "image/png", size: 40_000, offset: 0, data: "",
            bytes: png(40_000), last: true)
        client.sendBinary(big.binaryFrame())
        harness.settle()
        let refusals = errorMessages(client).filter { $0.code == .uploadInvalid }.map(\.message)
        #expect(refusals.count == 2)
        #expect(refusals.first?.contains("only images are accepted here") == true)
        #expect(refusals.last == "a chunk carries at most 32 KiB")
    }

    @Test func aHostThatDoesNotOfferThemRefusesBinaryChunks() {
        let harness = HostHarness { $0.binaryUploads = false }
        let client = harness.connect(capabilities: ["photoPicker"])
        harness.presentPhotoPicker(to: client)
        uploadBinary(client, "m1", name: "a.png", png(1_000))
        harness.settle()
        #expect(errorMessages(client).map(\.message) == ["binary frames are not accepted"])
        #expect(!client.received.contains { if case .uploadAck = $0 { true } else { false } })
    }
}
