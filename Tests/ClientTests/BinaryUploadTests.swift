import RemoteModalClient
import RemoteModalProtocol
import Testing

/// Upload chunks as binary frames (docs/protocol.md, section 7, "Binary chunks"): only on a
/// connection whose `welcome` offered them, and only when the configuration allows.
@Suite("Client machine: binary upload chunks")
struct BinaryUploadTests {
    private static let picker = ModalDescription.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 1_000_000)
    private static let file = PickedFileInfo(
        name: "cat.png", mimeType: "image/png", size: 40_000, sha256: String(repeating: "a", count: 64))

    /// Picks the file and reads every chunk asked for; returns the chunks sent on `attempt`.
    private static func upload(_ harness: inout MachineHarness, on attempt: Int) -> [UploadChunk] {
        harness.present("p1", picker, uploads: UploadOffer(window: 8))
        harness.handle(.picked(id: "p1", files: [file]))
        for read in harness.reads {
            harness.handle(
                .chunkRead(
                    id: "p1", file: 0, offset: read.offset,
                    bytes: (0..<read.length).map { UInt8(truncatingIfNeeded: read.offset + $0) }))
        }
        return harness.messages(on: attempt).compactMap { if case .upload(let chunk) = $0 { chunk } else { nil } }
    }

    @Test func offeredChunksGoRawInBinaryFrames() {
        var harness = MachineHarness()
        harness.welcome(binaryUploads: true)
        let chunks = Self.upload(&harness, on: harness.attempt)
        #expect(chunks.map(\.offset) == [0, 32_768])
        #expect(chunks.allSatisfy { $0.data.isEmpty && $0.bytes != nil }, "decoded from binary frames")
        #expect(chunks.map { $0.bytes?.count } == [32_768, 40_000 - 32_768])
        #expect(chunks.last?.bytes?.first == UInt8(truncatingIfNeeded: 32_768))
        #expect(chunks.map(\.last) == [false, true])
    }

    @Test func withoutAnOfferOrWithThemTurnedOffChunksAreBase64Text() {
        var plain = MachineHarness()
        plain.welcome()
        #expect(Self.upload(&plain, on: plain.attempt).allSatisfy { $0.bytes == nil && !$0.data.isEmpty })
        var refusing = MachineHarness { $0.binaryUploads = false }
        refusing.welcome(binaryUploads: true)
        #expect(Self.upload(&refusing, on: refusing.attempt).allSatisfy { $0.bytes == nil && !$0.data.isEmpty })
    }

    @Test func theOfferIsReadAgainOnEveryConnection() {
        var harness = MachineHarness()
        harness.welcome(binaryUploads: true)
        harness.drop()
        // The host came back as one that offers nothing: text again.
        harness.welcome("s2", resumed: false)
        let chunks = Self.upload(&harness, on: harness.attempt)
        #expect(!chunks.isEmpty && chunks.allSatisfy { $0.bytes == nil })
    }
}
