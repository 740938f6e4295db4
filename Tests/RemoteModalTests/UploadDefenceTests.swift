import Foundation
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

@testable import RemoteModalHost

/// One chunk of file 0 of the picker `m1`.
private func chunk(
    _ data: [UInt8], size: Int, offset: Int = 0, name: String = "a.png", mimeType: String = "image/png",
    last: Bool = false
) -> ClientMessage {
    .upload(
        UploadChunk(
            id: "m1", file: 0, name: name, mimeType: mimeType, size: size, offset: offset,
            data: Data(data).base64EncodedString(), last: last))
}

private func lastErrorMessage(_ client: TestClient) -> String? {
    for message in client.received.reversed() {
        if case .error(_, let error) = message { return error.message }
    }
    return nil
}

private let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// Issue 33 items 6-8 and issue 32's "images are judged by their bytes" (docs/security.md).
@Suite("Uploads: judged by their bytes, never held by trickling, spooled in a folder of the host's own")
struct UploadDefenceTests {
    /// Sends `file` as image/png to a fresh photo picker, in chunks of `first` bytes then
    /// 32 KiB, and says what the host answered last.
    private func send(_ file: [UInt8], name: String = "a.png", mimeType: String = "image/png", first: Int)
        -> (errors: [ErrorCode], message: String?, acked: Int)
    {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable().subscribe()
        harness.settle()
        var offset = 0
        while offset < file.count, client.errors.isEmpty {
            let end = min(file.count, offset + (offset == 0 ? first : 32_768))
            client.send(
                chunk(
                    Array(file[offset..<end]), size: file.count, offset: offset, name: name, mimeType: mimeType,
                    last: end == file.count))
            harness.settle()
            offset = end
        }
        let acked = client.received.compactMap { message -> Int? in
            if case .uploadAck(_, _, _, let received) = message { return received }
            return nil
        }
        return (client.errors, lastErrorMessage(client), acked.last ?? 0)
    }

    @Test(arguments: [1, 2, 512, 32_768])
    func aPDFOrAZIPNamedPNGIsRefusedHoweverSmallItsFirstChunk(first: Int) {
        var pdf = Array("%PDF-1.7\n".utf8)
        pdf += (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let refused = send(pdf, first: first)
        #expect(refused.errors == [.uploadInvalid])
        #expect(
            refused.message
                == "only images are accepted here: file 0 ('a.png') says image/png but its bytes are a PDF document")
        let zip = [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 1, count: 40_000)
        #expect(send(zip, first: first).message?.hasSuffix("but its bytes are a ZIP archive") == true)
    }

    @Test func randomBytesTextAndALeadingSpaceBeforeAPDFAreNotImages() {
        let noise = (0..<50_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let text = Array(String(repeating: "just words, no picture. ", count: 100).utf8)
        let spaced = Array(" %PDF-1.7\n".utf8) + [UInt8](repeating: 0x20, count: 2_000)
        for (file, first) in [(noise, 1), (text, 3), (spaced, 1), (noise, 32_768)] {
            let refused = send(file, first: first)
            #expect(refused.errors == [.uploadInvalid])
            #expect(
                refused.message
                    == "only images are accepted here: file 0 ('a.png') does not start as any known image format")
        }
    }

    @Test func anSVGIsRefusedForImagesEvenDeclaredAsOne() {
        let svg = Array(
            "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8)
        let refused = send(svg, name: "a.svg", mimeType: "image/svg+xml", first: 1)
        #expect(refused.errors == [.uploadInvalid])
        #expect(refused.message?.hasSuffix("is an SVG drawing, which may carry scripts and is not accepted") == true)
    }

    @Test func imagesOfEveryKnownFormatPassInChunksOfOneByteFirst() {
        func padded(_ head: [UInt8]) -> [UInt8] { head + [UInt8](repeating: 0x11, count: 2_000) }
        var bmp = [UInt8](repeating: 0, count: 54)
        bmp[0] = 0x42
        bmp[1] = 0x4D
        bmp[14] = 40
        let images: [[UInt8]] = [
            pngSignature, [0xFF, 0xD8, 0xFF, 0xE0], Array("GIF89a".utf8), Array("II*\u{0}".utf8),
            Array("MM\u{0}*".utf8),
            bmp, Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), [0, 0, 0, 0x18] + Array("ftypheic".utf8),
            [0, 0, 0, 0x18] + Array("ftypavif".utf8), [0, 0, 0, 0x18] + Array("ftypmif1".utf8),
        ]
        for head in images {
            let file = padded(head)
            let sent = send(file, first: 1)
            #expect(sent.errors.isEmpty, "\(head.prefix(12))")
            #expect(sent.acked == file.count)
        }
        // A video is not an image.
        let mp4 = padded([0, 0, 0, 0x18] + Array("ftypisom".utf8))
        #expect(send(mp4, first: 1).message?.hasSuffix("but its bytes are an MP4 video") == true)
    }

    @Test func theSnifferKnowsVideoAndAudioAndNothingFromTooFewBytes() {
        func kinds(_ head: [UInt8]) -> String? {
            MediaSniffer.sniff(Data(head + [UInt8](repeating: 0x11, count: 600)))?.name
        }
        #expect(kinds([0x1A, 0x45, 0xDF, 0xA3]) == "a WebM/Matroska file")
        #expect(kinds(Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8)) == "an AVI video")
        #expect(kinds([0, 0, 0, 0x14] + Array("ftypqt  ".utf8)) == "a QuickTime video")
        #expect(kinds(Array("ID3".utf8) + [3, 0]) == "MP3 audio")
        #expect(kinds([0xFF, 0xFB, 0x90, 0x44]) == "MP3 audio")
        #expect(kinds(Array("fLaC".utf8)) == "FLAC audio")
        #expect(kinds(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == "WAV audio")
        #expect(kinds(Array("OggS".utf8) + [0]) == "an Ogg file")
        #expect(MediaSniffer.sniff(Data([0x89])) == nil)
        #expect(MediaSniffer.sniff(Data()) == nil)
    }

    /// The setup of the slow-file tests: a host whose spool holds 1 MB (at least 4 KiB/s per
    /// file, a stall after `stallSeconds`), and two clients from the two addresses, each shown
    /// a 1 MB photo picker.
    /// - Returns: The harness, the slow client, the other one, and where the other's files arrive.
    private func tricklerAndBystander(stallSeconds: Double, from peers: (String, String)) -> (
        HostHarness, TestClient, TestClient, Outcome<[PickedFile]>
    ) {
        let harness = HostHarness {
            $0.uploadStallSeconds = stallSeconds
            $0.uploadMinimumBytesPerSecond = 4_096
            $0.maxUploadSpoolBytes = 1_000_000
        }
        let trickler = harness.pickerClient("trickler", from: peers.0)
        let bystander = harness.pickerClient("bystander", from: peers.1)
        harness.presentPhotoPicker(to: trickler, maxBytes: 1_000_000)
        let outcome = harness.presentPhotoPicker(to: bystander, maxBytes: 1_000_000)
        return (harness, trickler, bystander, outcome)
    }

    @Test func aFileTrickledInsideTheStallTimeIsDroppedAndAnotherAddressGetsTheBudget() {
        let (harness, trickler, bystander, outcome) = tricklerAndBystander(
            stallSeconds: 10, from: ("10.0.0.81", "10.0.0.82"))
        let big = pngSignature + [UInt8](repeating: 3, count: 900_000)
        trickler.send(chunk(Array(big[0..<1_024]), size: big.count))
        harness.settle()
        let small = pngSignature + [UInt8](repeating: 4, count: 200_000)
        bystander.send(chunk(Array(small[0..<1_024]), size: small.count))
        harness.settle()
        #expect(lastErrorMessage(bystander) == "host upload budget exhausted; try again later")
        // One kilobyte every 5 s: inside the 10 s stall time, far below 4 KiB/s.
        var offset = 1_024
        for _ in 0..<4 {
            harness.advance(seconds: 5)
            trickler.send(chunk(Array(big[offset..<offset + 1_024]), size: big.count, offset: offset))
            harness.settle()
            offset += 1_024
        }
        #expect(lastErrorMessage(trickler)?.contains("must start at offset 0") == true)
        upload(bystander, "m1", file: 0, name: "a.png", small)
        bystander.send(.result(id: "m1", value: ["items": [item("a.png", small)]]))
        harness.settle()
        #expect(outcome.elements.first?.first?.size == small.count)
    }

    /// Round five of the outside attack: a whole upload sent fast, its picker never answered,
    /// kept its reservation for as long as the connection lived (25 addresses held the 1 GiB
    /// for 10 minutes, every bystander's photo refused). Complete and unanswered for the stall
    /// time, it is dropped; the bystander gets the budget; a late result is told why.
    @Test func aFinishedUploadWhosePickerIsNeverAnsweredLosesItsReservation() {
        let (harness, holder, bystander, outcome) = tricklerAndBystander(
            stallSeconds: 10, from: ("10.0.0.91", "10.0.0.92"))
        let big = pngSignature + [UInt8](repeating: 7, count: 900_000)
        upload(holder, "m1", file: 0, name: "a.png", big)
        harness.settle()
        #expect(holder.errors.isEmpty, "the whole file is taken")
        let small = pngSignature + [UInt8](repeating: 8, count: 200_000)
        bystander.send(chunk(Array(small[0..<1_024]), size: small.count))
        harness.settle()
        #expect(lastErrorMessage(bystander) == "host upload budget exhausted; try again later")
        harness.advance(seconds: 9)
        bystander.send(chunk(Array(small[0..<1_024]), size: small.count))
        harness.settle()
        #expect(lastErrorMessage(bystander) == "host upload budget exhausted; try again later", "held inside the 10 s")
        harness.advance(seconds: 2)
        upload(bystander, "m1", file: 0, name: "a.png", small)
        bystander.send(.result(id: "m1", value: ["items": [item("a.png", small)]]))
        harness.settle()
        #expect(outcome.elements.first?.first?.size == small.count, "the bystander's photo arrives")
        holder.send(.result(id: "m1", value: ["items": [item("a.png", big)]]))
        harness.settle()
        #expect(
            lastErrorMessage(holder)
                == "the host dropped the uploaded files: no result came within 10 s of their last byte; send them again"
        )
    }

    @Test func aFewAddressesWithinTheirCapsCannotTakeTheLastQuarterOfTheBudget() {
        // Round four of the outside attack: nine addresses, each within its own cap, kept
        // uploads alive just above the minimum rate and held the whole budget.
        let harness = HostHarness {
            $0.maxUploadSpoolBytes = 1_000_000
            $0.maxUploadBytesPerAddress = 400_000
        }
        let file = pngSignature + [UInt8](repeating: 5, count: 250_000 - pngSignature.count)
        var refusals: [String?] = []
        for index in 0..<4 {
            let attacker = harness.pickerClient("attacker\(index)", from: "10.0.1.\(index + 1)")
            harness.presentPhotoPicker(to: attacker, maxBytes: 1_000_000)
            attacker.send(chunk(Array(file[0..<1_024]), size: file.count))
            harness.settle()
            refusals.append(lastErrorMessage(attacker))
        }
        // Three fit in the first three quarters; the fourth would reach into the last one.
        #expect(refusals.prefix(3).allSatisfy { $0 == nil })
        #expect(refusals.last == "host upload budget exhausted; try again later")
        // A person with a photo, from another address, still finds room.
        let bystander = harness.pickerClient("bystander", from: "10.0.1.100")
        let outcome = harness.presentPhotoPicker(to: bystander, maxBytes: 1_000_000)
        let photo = pngSignature + [UInt8](repeating: 6, count: 40_000)
        upload(bystander, "m1", file: 0, name: "a.png", photo)
        bystander.send(.result(id: "m1", value: ["items": [item("a.png", photo)]]))
        harness.settle()
        #expect(lastErrorMessage(bystander) == nil)
        #expect(outcome.elements.first?.first?.size == photo.count)
    }

    @Test func aPersonWhoTakesAMinuteToChooseAgainAfterARefusedFileIsNotCalledSlow() {
        // Issue 32's cold trial: a text file named .png was refused, the person chose a real
        // photo 75 s later, and every file was then refused as "slower than 16384 bytes a
        // second": the time spent choosing was counted as upload time.
        let harness = HostHarness {
            $0.uploadStallSeconds = 10
            $0.uploadMinimumBytesPerSecond = 16_384
        }
        let person = harness.pickerClient("person", from: "10.0.0.95")
        let outcome = harness.presentPhotoPicker(to: person, maxBytes: 1_000_000)
        let text = Array("just some notes, not a picture at all".utf8)
        person.send(chunk(text, size: text.count, name: "fake.png", last: true))
        harness.settle()
        #expect(lastErrorMessage(person)?.contains("does not start as any known image format") == true)
        harness.advance(seconds: 75)
        let photo = pngSignature + [UInt8](repeating: 7, count: 100_000)
        upload(person, "m1", file: 0, name: "b.png", photo)
        person.send(.result(id: "m1", value: ["items": [item("b.png", photo)]]))
        harness.settle()
        #expect(lastErrorMessage(person)?.contains("slower than") != true, "\(lastErrorMessage(person) ?? "")")
        #expect(outcome.elements.first?.first?.size == photo.count)
    }

    @Test func aFileStartedAgainAtOffsetZeroOverAndOverDoesNotKeepItsReservation() {
        // The outside attack after round three: one byte at offset 0 every 2 s restarted the
        // file's clocks, and its reservation was held for ever.
        let (harness, trickler, bystander, outcome) = tricklerAndBystander(
            stallSeconds: 4, from: ("10.0.0.91", "10.0.0.92"))
        let big = pngSignature + [UInt8](repeating: 3, count: 900_000)
        for round in 0..<6 {
            trickler.send(chunk(Array(big[0..<1]), size: big.count))
            harness.settle()
            if round < 5 { harness.advance(seconds: 2) }
        }
        let small = pngSignature + [UInt8](repeating: 4, count: 200_000)
        upload(bystander, "m1", file: 0, name: "a.png", small)
        bystander.send(.result(id: "m1", value: ["items": [item("a.png", small)]]))
        harness.settle()
        #expect(outcome.elements.first?.first?.size == small.count, "the bystander gets the budget")
    }

    @Test func theResultCarriesTheTypeTheBytesWereJudgedToBeNotTheDeclaredOne() {
        // PNG bytes declared as an SVG drawing, JPEG bytes declared as PNG.
        let png = pngSignature + [UInt8](repeating: 6, count: 3_000)
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 3_000)
        for (file, declared, judged) in [(png, "image/svg+xml", "image/png"), (jpeg, "image/png", "image/jpeg")] {
            let harness = HostHarness()
            let client = harness.connect(capabilities: ["photoPicker"])
            let outcome = harness.presentPhotoPicker(to: client)
            client.send(chunk(file, size: file.count, name: "a.img", mimeType: declared, last: true))
            var described = item("a.img", file)
            if case .object(var pairs) = described {
                pairs = pairs.map { $0.0 == "mimeType" ? ($0.0, .string(declared)) : $0 }
                described = .object(pairs)
            }
            client.send(.result(id: "m1", value: ["items": [described]]))
            harness.settle()
            #expect(client.errors.isEmpty)
            #expect(outcome.elements.first?.map(\.mimeType) == [judged], "declared \(declared)")
            #expect(outcome.elements.first?.map(\.declaredMimeType) == [declared])
        }
    }

    @Test func aFileAtTheMinimumRateKeepsItsReservation() {
        let harness = HostHarness {
            $0.uploadStallSeconds = 10
            $0.uploadMinimumBytesPerSecond = 4_096
        }
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        let file = pngSignature + [UInt8](repeating: 5, count: 100_000 - 8)
        var offset = 0
        while offset < file.count {
            let end = min(file.count, offset + 8_192)
            client.send(chunk(Array(file[offset..<end]), size: file.count, offset: offset, last: end == file.count))
            harness.settle()
            offset = end
            if offset < file.count { harness.advance(seconds: 2) }
        }
        client.send(.result(id: "m1", value: ["items": [item("a.png", file)]]))
        harness.settle()
        #expect(client.errors.isEmpty)
        #expect(outcome.elements.first?.first?.size == file.count)
    }

    @Test func aSpoolFolderThatIsASymlinkOrOpenToOthersIsRefusedAtStart() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("spool-defence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let target = base.appendingPathComponent("root-only")
        try FileManager.default.createDirectory(
            at: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let link = base.appendingPathComponent("spool-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let open = base.appendingPathComponent("spool-open")
        try FileManager.default.createDirectory(
            at: open, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let file = base.appendingPathComponent("spool-file")
        _ = FileManager.default.createFile(atPath: file.path, contents: Data([1]))

        func refusal(_ path: URL) -> String? { refusal(path.path) }
        func refusal(_ path: String) -> String? {
            var configuration = ModalHostConfiguration()
            configuration.spoolDirectory = path
            let host = ModalHost(configuration: configuration, transport: InMemoryTransport())
            defer { host.shutdown() }
            do {
                try host.start()
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(link)?.contains("'\(link.path)' is a symbolic link") == true)
        // A trailing slash would make the checks look through the link (the outside attack).
        #expect(refusal(link.path + "//")?.contains("'\(link.path)' is a symbolic link") == true)
        #expect(refusal(open)?.contains("has mode 755: it must be 0700") == true)
        #expect(refusal(file)?.contains("is not a folder") == true)
        // Nothing was written through the link.
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
        // A folder of the host's own, mode 0700, is used; a missing one is created so.
        #expect(refusal(target) == nil)
        let fresh = base.appendingPathComponent("fresh")
        #expect(refusal(fresh) == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: fresh.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }
}
