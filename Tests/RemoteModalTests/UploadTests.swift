import Foundation
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

/// A client-side upload that paces itself by the window, as the shipped clients do.
private struct PacedUpload {
    let id: String
    let file: Int
    let data: [UInt8]
    var offset = 0
    var sent = 0
    var bytesOnWire = 0

    init(id: String, file: Int = 0, data: [UInt8], from offset: Int = 0) {
        self.id = id
        self.file = file
        self.data = data
        self.offset = offset
    }

    var done: Bool { offset >= data.count }

    /// Sends chunks while fewer than `window` are unacknowledged (`acked` so far).
    mutating func pump(_ client: TestClient, window: Int, acked: Int) {
        while !done, sent - acked < window {
            let end = min(offset + 32_768, data.count)
            client.send(
                .upload(
                    UploadChunk(
                        id: id, file: file, name: "f\(file).bin", mimeType: "image/png", size: data.count,
                        offset: offset, data: Data(data[offset..<end]).base64EncodedString(), last: end == data.count)))
            bytesOnWire += end - offset
            offset = end
            sent += 1
        }
    }
}

private func acks(_ client: TestClient, _ id: String) -> [(file: Int, received: Int)] {
    client.received.compactMap {
        if case .uploadAck(_, let ackID, let file, let received) = $0, ackID == id { (file, received) } else { nil }
    }
}

private func offer(_ client: TestClient) -> UploadOffer? {
    for message in client.received.reversed() {
        if case .present(_, _, _, let uploads) = message { return uploads }
    }
    return nil
}

/// A picked file's bytes: they start as a PNG does (a picker judges a file by its bytes).
private func bytes(_ count: Int, seed: Int = 1) -> [UInt8] {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    return (0..<count).map { $0 < signature.count ? signature[$0] : UInt8(truncatingIfNeeded: $0 &* 131 &+ seed) }
}

private func spoolFiles(_ folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("upload-") }
}

private func temporaryFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-tests-\(UUID().uuidString)")
    // Mode 0700: the host refuses a spool folder others can reach.
    try? FileManager.default.createDirectory(
        at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return url
}

@Suite("Uploads: acknowledged, paced, resumed, budgeted")
struct UploadTests {
    @Test func everyAcceptedChunkIsAcknowledgedWithTheBytesHeld() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        #expect(offer(client) == UploadOffer(window: 8, received: []))
        let data = bytes(100_000)
        upload(client, "m1", file: 0, name: "a.png", data)
        harness.settle()
        #expect(acks(client, "m1").map(\.received) == [32_768, 65_536, 98_304, 100_000])
        // Acknowledgements take the session's seq like every host message.
        let seqs = client.received.compactMap(\.seq)
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
        client.send(.result(id: "m1", value: ["items": [item("a.png", data)]]))
        harness.settle()
        #expect(try outcome.elements.first?.first?.contents() == Data(data))
    }

    @Test func aResumedUploadContinuesFromTheBytesTheHostHolds() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        let data = bytes(1_000_000)
        var sender = PacedUpload(id: "m1", data: data)
        // Half the file, then the connection drops.
        while sender.offset < data.count / 2 {
            sender.pump(client, window: 8, acked: acks(client, "m1").count)
            harness.settle()
        }
        let held = try #require(acks(client, "m1").last?.received)
        client.disconnect()
        harness.settle()

        let back = harness.connect(capabilities: ["photoPicker"], resume: client.session)
        let resumed = try #require(offer(back))
        #expect(resumed.received == [ReceivedFile(file: 0, bytes: held)])
        // An offset that does not continue the file is refused, naming what is held, and drops nothing.
        back.send(
            .upload(
                UploadChunk(
                    id: "m1", file: 0, name: "f0.bin", mimeType: "image/png", size: data.count, offset: held + 5,
                    data: Data(data[(held + 5)..<(held + 10)]).base64EncodedString(), last: false)))
        harness.settle()
        #expect(back.errors == [.uploadInvalid])
        #expect(back.frames.last?.contains("holds \(held) bytes") == true)

        var rest = PacedUpload(id: "m1", data: data, from: held)
        while !rest.done {
            rest.pump(back, window: 8, acked: acks(back, "m1").count)
            harness.settle()
        }
        back.send(.result(id: "m1", value: ["items": [item("f0.bin", data)]]))
        harness.settle()
        #expect(back.errors == [.uploadInvalid])
        #expect(try outcome.elements.first?.first?.contents() == Data(data))
        let wire = sender.bytesOnWire + rest.bytesOnWire
        #expect(Double(wire) < 1.2 * Double(data.count))
    }

    @Test func theWindowPacesAClientToTheUploadRateWithoutRefusingIt() {
        let harness = HostHarness { $0.uploadBytesPerSecond = 128 * 1_024 }
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) { $0.maxBytes = 4 << 20 }
            .asObservable().subscribe(outcome.observer())
        harness.settle()
        let data = bytes(2 * 1_048_576)
        var sender = PacedUpload(id: "m1", data: data)
        let start = harness.clock.clock
        while !sender.done {
            sender.pump(client, window: 8, acked: acks(client, "m1").count)
            harness.settle()
            if !sender.done && sender.sent - acks(client, "m1").count >= 8 { harness.advance(seconds: 1) }
        }
        while acks(client, "m1").count < sender.sent { harness.advance(seconds: 1) }
        #expect(client.errors.isEmpty)
        // 2 MiB at 128 KiB/s after a 256 KiB burst: about 14 s of virtual time.
        let elapsed = harness.clock.clock - start
        #expect(elapsed >= 13 && elapsed <= 16)
        client.send(.result(id: "m1", value: ["items": [item("f0.bin", data)]]))
        harness.settle()
        #expect(outcome.elements.first?.first?.size == data.count)
    }

    @Test func aClientIgnoringTheWindowIsRefusedAndTheRefusedChunkIsNotStored() {
        let harness = HostHarness { $0.uploadBytesPerSecond = 32 * 1_024 }
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable().subscribe()
        harness.settle()
        let data = bytes(1_000_000)
        var flood = PacedUpload(id: "m1", data: data)
        flood.pump(client, window: 17, acked: 0)  // 8 within the burst, 8 held back, 1 too many
        harness.settle()
        #expect(client.errors == [.rateLimited])
        // The refusal names the chunk (its offset) and where to go on from (the 16 held).
        #expect(
            client.frames.contains { $0.contains(#""ref":"upload","id":"m1","file":0,"offset":524288,"held":524288}"#) }
        )
        #expect(acks(client, "m1").count == 8)
        harness.advance(seconds: 20)
        // The 16 accepted chunks are acknowledged in order; the 17th was not stored.
        #expect(acks(client, "m1").map(\.received) == (1...16).map { $0 * 32_768 })
    }

    @Test func uploadsAreNotCountedAgainstTheMessageRate() {
        let harness = HostHarness {
            $0.messagesPerSecond = 1
            $0.messageBurst = 5
        }
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) { $0.maxBytes = 4 << 20 }
            .asObservable().subscribe()
        harness.settle()
        var sender = PacedUpload(id: "m1", data: bytes(3_000_000))
        while !sender.done {
            sender.pump(client, window: 8, acked: acks(client, "m1").count)
            harness.settle()
        }
        #expect(client.errors.isEmpty)
        #expect(acks(client, "m1").last?.received == 3_000_000)
        // Uploads for a modal that is not a pending picker still spend the message rate.
        for _ in 0..<10 {
            client.send(
                .upload(
                    UploadChunk(
                        id: "m9", file: 0, name: "x", mimeType: "x", size: 1, offset: 0, data: "AA==", last: true)))
        }
        harness.settle()
        #expect(client.errors.contains(.rateLimited))
    }

    @Test func cancellingDropsHeldBytesAndSpoolFilesAtOnce() {
        let folder = temporaryFolder()
        let harness = HostHarness { $0.spoolDirectory = folder.path }
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        var sender = PacedUpload(id: "m1", data: bytes(600_000))
        for _ in 0..<3 {
            sender.pump(client, window: 8, acked: acks(client, "m1").count)
            harness.settle()
        }
        #expect(spoolFiles(folder).count == 1)
        client.send(.failure(id: "m1", code: .cancelled, message: nil))
        harness.settle()
        // A cancelled picker picked nothing: an empty selection, as upstream's (issue #30).
        #expect(outcome.elements.map(\.count) == [0])
        #expect(outcome.error == nil)
        #expect(spoolFiles(folder).isEmpty)
    }

    @Test func pastTheMemoryBudgetChunksGoToSpoolFiles() {
        let folder = temporaryFolder()
        let harness = HostHarness {
            $0.spoolDirectory = folder.path
            $0.maxUploadMemoryBytes = 100_000
        }
        var clients: [TestClient] = []
        for index in 0..<3 {
            let client = harness.connect(name: "c\(index)", capabilities: ["photoPicker"])
            _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable().subscribe()
            clients.append(client)
        }
        harness.settle()
        // Each holds 60,000 bytes: small enough for memory alone, but only one fits the budget.
        for client in clients { upload(client, "m1", file: 0, name: "a.png", bytes(60_000), chunk: 30_000) }
        harness.settle()
        #expect(clients.allSatisfy { $0.errors.isEmpty })
        #expect(spoolFiles(folder).count == 2)
    }

    @Test func pastTheHostBudgetANewUploadIsRefusedUntilRoomIsFreed() {
        let harness = HostHarness { $0.maxUploadSpoolBytes = 150_000 }
        let first = harness.connect(name: "first", capabilities: ["photoPicker"])
        let second = harness.connect(name: "second", capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: first))).asObservable().subscribe()
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: second))).asObservable()
            .subscribe(outcome.observer())
        harness.settle()
        let big = bytes(100_000)
        let other = bytes(80_000, seed: 9)
        first.send(
            .upload(
                UploadChunk(
                    id: "m1", file: 0, name: "a.png", mimeType: "image/png", size: big.count, offset: 0,
                    data: Data(big[0..<32_768]).base64EncodedString(), last: false)))
        second.send(
            .upload(
                UploadChunk(
                    id: "m1", file: 0, name: "b.png", mimeType: "image/png", size: other.count, offset: 0,
                    data: Data(other[0..<32_768]).base64EncodedString(), last: false)))
        harness.settle()
        #expect(second.errors == [.uploadInvalid])
        #expect(second.frames.last?.contains("host upload budget exhausted") == true)
        first.send(.failure(id: "m1", code: .cancelled, message: nil))
        harness.settle()
        upload(second, "m1", file: 0, name: "b.png", other)
        second.send(.result(id: "m1", value: ["items": [item("b.png", other)]]))
        harness.settle()
        #expect(outcome.elements.first?.first?.size == other.count)
    }

    @Test func spoolFilesLeftBehindAreRemovedAtStartAndAtShutdown() throws {
        let folder = temporaryFolder()
        let stale = folder.appendingPathComponent("upload-left-by-a-killed-host")
        let unrelated = folder.appendingPathComponent("notes.txt")
        _ = FileManager.default.createFile(atPath: stale.path, contents: Data([1]))
        _ = FileManager.default.createFile(atPath: unrelated.path, contents: Data([2]))
        let harness = HostHarness { $0.spoolDirectory = folder.path }
        #expect(spoolFiles(folder).isEmpty)
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable().subscribe()
        harness.settle()
        var sender = PacedUpload(id: "m1", data: bytes(400_000))
        sender.pump(client, window: 10, acked: 0)
        harness.settle()
        #expect(spoolFiles(folder).count == 1)
        harness.host.shutdown()
        harness.settle()
        #expect(spoolFiles(folder).isEmpty)
    }

    @Test func aResumedAlertCarriesWhatWasTypedButNeverAPassword() throws {
        let harness = HostHarness()
        let client = harness.connect()
        _ = RemoteModal.alert(
            String.self, presenter: .session(harness.session(of: client)), title: "Sign in",
            textFields: [.email(placeholder: "e-mail"), .password(placeholder: "password")],
            actions: [.cancel(title: "Cancel", mapTo: "")]
        ).asObservable().subscribe()
        harness.settle()
        client.send(.input(id: "m1", textFields: ["ann@example.com", "secret"]))
        harness.settle()
        client.disconnect()
        harness.settle()
        let back = harness.connect(resume: client.session)
        let modal = try #require(back.presents.first?.modal)
        guard case .alert(_, _, let fields, _) = modal else {
            Issue.record("expected an alert, got \(modal)")
            return
        }
        #expect(fields.map(\.text) == ["ann@example.com", nil])
        #expect(!back.frames.joined().contains("secret"))
    }

    @Test func aResumedAlertJudgesItsRulesOnWhatIsShownWithoutThePassword() throws {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = signInAlert(on: harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        client.send(.input(id: "m1", textFields: ["ann@example.com", "secret"]))
        harness.settle()
        client.disconnect()
        harness.settle()
        // A reload: the e-mail comes back, the password does not, so neither does "Sign In".
        let back = harness.connect(resume: client.session)
        #expect(back.presents.first?.modal.actions?.map(\.enabled) == [true, false])
        // Sign In is disabled as shown: an answer with the shown (empty) password is refused...
        back.send(alertResult("m1", action: 1, textFields: ["ann@example.com", ""]))
        harness.settle()
        #expect(back.errors == [.badMessage])
        #expect(!outcome.finished)
        // ...one whose own fields pass the rule is accepted straight away, no `input` first.
        back.send(alertResult("m1", action: 1, textFields: ["ann@example.com", "secret"]))
        harness.settle()
        #expect(back.errors == [.badMessage])
        #expect(outcome.elements == ["ann@example.com"])
    }

    @Test func aStalledUploadIsDroppedWhenItsOwnStallTimeEndsNotAtTheNextSweep() {
        // Each picker's stall timer is due when its oldest file in progress has gone 30 s
        // without a chunk: a sweep every 10 s (the former design) would drop it at 60 s.
        let harness = HostHarness {
            $0.maxUploadSpoolBytes = 1_000_000
            $0.maxUploadBytesPerAddress = 300_000
            $0.uploadStallSeconds = 30
            // The stall clock alone: the minimum rate (which would drop this 2,000-byte
            // trickle at 30.1 s) has its own tests in UploadDefenceTests.
            $0.uploadMinimumBytesPerSecond = 0
        }
        func picker(_ name: String) -> TestClient {
            let client = harness.pickerClient(name, from: "10.0.0.66")
            harness.presentPhotoPicker(to: client)
            return client
        }
        func start(_ client: TestClient, size: Int, offset: Int = 0) {
            client.send(
                .upload(
                    UploadChunk(
                        id: "m1", file: 0, name: "a.png", mimeType: "image/png", size: size, offset: offset,
                        data: Data(bytes(1_000)).base64EncodedString(), last: false)))
            harness.settle()
        }
        let holder = picker("holder")
        start(holder, size: 200_000)
        harness.advance(seconds: 23)
        // A chunk at 23 s moves the file's time: it now stalls at 53 s, not 30 s.
        start(holder, size: 200_000, offset: 1_000)
        #expect(holder.errors.isEmpty)
        harness.advance(seconds: 29)
        let early = picker("early")
        start(early, size: 200_000)
        #expect(early.errors == [.uploadInvalid], "at 52 s the holder's share is still reserved")
        harness.advance(seconds: 1)
        let onTime = picker("on-time")
        start(onTime, size: 200_000)
        #expect(onTime.errors.isEmpty, "at 53 s the holder's stalled file is gone: \(onTime.frames.suffix(2))")
    }

    @Test func oneAddressCannotHoldTheWholeUploadBudgetAndStalledUploadsLetGo() {
        let harness = HostHarness {
            $0.maxUploadSpoolBytes = 1_000_000
            $0.maxUploadBytesPerAddress = 300_000
            $0.uploadStallSeconds = 30
        }
        func picker(_ peer: String, _ name: String) -> TestClient {
            let client = harness.pickerClient(name, from: peer)
            harness.presentPhotoPicker(to: client)
            return client
        }
        func start(_ client: TestClient, size: Int) {
            client.send(
                .upload(
                    UploadChunk(
                        id: "m1", file: 0, name: "a.png", mimeType: "image/png", size: size, offset: 0,
                        data: Data(bytes(1_000)).base64EncodedString(), last: false)))
            harness.settle()
        }
        // An attacker's address starts uploads it never finishes: it gets its share, no more.
        let holders = (0..<4).map { picker("10.0.0.66", "holder\($0)") }
        for holder in holders { start(holder, size: 100_000) }
        #expect(holders.prefix(3).allSatisfy { $0.errors.isEmpty })
        #expect(holders[3].errors == [.uploadInvalid])
        #expect(holders[3].frames.last?.contains("this client address") == true)
        // Someone else still uploads.
        let victim = picker("10.0.0.7", "victim")
        start(victim, size: 250_000)
        #expect(victim.errors.isEmpty)
        // The holders stop sending: after the stall time their reservations go.
        harness.advance(seconds: 45)
        let late = picker("10.0.0.66", "again")
        start(late, size: 250_000)
        #expect(late.errors.isEmpty, "\(late.frames.suffix(2))")
    }
}
