import RemoteModalClient
import RemoteModalProtocol
import Testing

/// The edges a network makes, in virtual time: drops mid-dialog, after an answer, mid-upload;
/// a host that restarted; a session that expired.
@Suite("Client machine: drops, restarts, expiry")
struct DropEdgeTests {
    @Test func aDropMidDialogResumesWithLastSeqAndKeepsTheOneDialog() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.handle(.typed(id: "m1", textFields: ["ann@example.com", ""]))
        harness.drop()
        #expect(harness.opened == [1, 2])
        harness.handle(.linkOpened(attempt: 2))
        let hello = harness.hello(on: 2)
        #expect(hello?.resumeSession == "s1")
        #expect(hello?.resumeLastSeq == 1)
        harness.host(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        // The typed text goes again (the host restores it on a later reload).
        #expect(harness.messages(on: 2) == [.input(id: "m1", textFields: ["ann@example.com", ""])])
        harness.present("m1")
        #expect(harness.presents.map(\.id) == ["m1"], "no second dialog")
        #expect(harness.represents.map(\.id) == ["m1"])
        harness.host(.status(seq: harness.nextSeq(), level: .info, text: "still here"))
        #expect(harness.ends.isEmpty, "the modal was presented again: it did not end")
    }

    @Test func anAnswerCutOffBeforeItsDismissIsSentAgainOnceWithItsTextFieldsFirst() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.host(.update(seq: harness.nextSeq(), id: "m1", actions: [true, true]))
        let answer = FormReply.answer(.action(index: 1, textFields: ["ann@example.com", "pw"]))
        harness.handle(.answered(id: "m1", answer))
        #expect(harness.results("m1").count == 1)
        harness.drop()
        harness.welcome("s1", resumed: true)
        let again = harness.messages(on: 2)
        #expect(again.count == 2)
        #expect(again.first == .input(id: "m1", textFields: ["ann@example.com", "pw"]))
        #expect(harness.results("m1").count == 2, "sent once more after the resume")
        // The host had taken it before the drop: it repeats the dismiss; the answer is forgotten.
        harness.dismiss("m1")
        #expect(harness.ends.map(\.0) == ["m1"])
        #expect(harness.machine.keptAnswers.isEmpty)
        harness.drop()
        harness.welcome("s1", resumed: true)
        #expect(harness.results("m1").count == 2, "never a third time")
    }

    @Test func anAnswerGivenOfflineWaitsForTheConnection() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1", .actionSheet(title: "Pick", message: nil, source: nil, actions: [ActionSpec(title: "A")]))
        harness.handle(.linkClosed(attempt: 1, code: 1006, reason: ""))
        harness.handle(.answered(id: "m1", .answer(.action(index: 0, textFields: []))))
        #expect(harness.results("m1").isEmpty)
        #expect(harness.updates.contains { if case .offline = $0 { true } else { false } })
        harness.advance(6)
        harness.welcome("s1", resumed: true)
        #expect(harness.results("m1") == [.result(id: "m1", value: ["action": 0])])
    }

    @Test func aDropMidUploadContinuesFromWhatTheHostHolds() throws {
        var harness = MachineHarness()
        harness.welcome()
        let picker = ModalDescription.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 1_000_000)
        harness.present("p1", picker, uploads: UploadOffer(window: 2))
        let file = PickedFileInfo(
            name: "cat.png", mimeType: "image/png", size: 100_000, sha256: String(repeating: "a", count: 64))
        harness.handle(.picked(id: "p1", files: [file]))
        #expect(harness.reads.map(\.offset) == [0, 32_768], "a window of two chunks")
        for read in harness.reads {
            harness.handle(
                .chunkRead(id: "p1", file: 0, offset: read.offset, bytes: [UInt8](repeating: 1, count: read.length)))
        }
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 32_768))
        #expect(harness.reads.map(\.offset) == [0, 32_768, 65_536])
        harness.reads = []
        harness.drop()
        harness.welcome("s1", resumed: true)
        #expect(harness.reads.isEmpty, "nothing before the host says what it holds")
        harness.present("p1", picker, uploads: UploadOffer(window: 2, received: [ReceivedFile(file: 0, bytes: 65_536)]))
        #expect(harness.reads.map(\.offset) == [65_536, 98_304])
        for read in harness.reads {
            harness.handle(
                .chunkRead(id: "p1", file: 0, offset: read.offset, bytes: [UInt8](repeating: 1, count: read.length)))
        }
        let chunks = harness.messages(on: 2).compactMap { if case .upload(let chunk) = $0 { chunk } else { nil } }
        #expect(chunks.map(\.offset) == [65_536, 98_304])
        #expect(chunks.map(\.last) == [false, true])
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 98_304))
        #expect(harness.results("p1").isEmpty)
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 100_000))
        let value = try #require(harness.results("p1").first)
        guard case .result(_, let json) = value else {
            Issue.record("not a result")
            return
        }
        #expect(
            try picker.validateResult(json)
                == .picked([PickedItem(name: "cat.png", mimeType: "image/png", size: 100_000, sha256: file.sha256)]))
    }

    @Test func aPacingRefusalThatSaysWhatTheHostHoldsGoesOnFromThere() {
        var harness = MachineHarness()
        harness.welcome()
        let picker = ModalDescription.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 1_000_000)
        harness.present("p1", picker, uploads: UploadOffer(window: 2))
        let file = PickedFileInfo(
            name: "cat.png", mimeType: "image/png", size: 200_000, sha256: String(repeating: "a", count: 64))
        harness.handle(.picked(id: "p1", files: [file]))
        for read in harness.reads {
            harness.handle(
                .chunkRead(id: "p1", file: 0, offset: read.offset, bytes: [UInt8](repeating: 1, count: read.length)))
        }
        harness.reads = []
        let refusal = ProtocolError(
            .rateLimited, "more than 2 upload chunks unacknowledged", ref: "upload", id: "p1", file: 0, held: 65_536)
        harness.host(.error(seq: harness.nextSeq(), refusal))
        // The other chunk in flight gets its reply (§7: the client waits for it); an
        // acknowledgement after the refusal is of an earlier chunk and does not move `held`.
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 32_768))
        #expect(harness.reads.map(\.offset) == [65_536, 98_304], "from the bytes the host holds, not from 0")
    }

    /// Sends what the harness was asked to read, each chunk of `length` bytes of 1.
    private func sendReads(_ harness: inout MachineHarness) {
        let reads = harness.reads
        harness.reads = []
        for read in reads {
            harness.handle(
                .chunkRead(
                    id: "p1", file: read.file, offset: read.offset, bytes: [UInt8](repeating: 1, count: read.length)))
        }
    }

    @Test func aPacingRefusalWaitsForTheChunksStillInFlightBeforeGoingOn() {
        var harness = MachineHarness()
        harness.welcome()
        let picker = ModalDescription.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 1_000_000)
        harness.present("p1", picker, uploads: UploadOffer(window: 2))
        let file = PickedFileInfo(
            name: "cat.png", mimeType: "image/png", size: 200_000, sha256: String(repeating: "a", count: 64))
        harness.handle(.picked(id: "p1", files: [file]))
        sendReads(&harness)
        // The host stored chunk 0 (its acknowledgement held back for pacing) and refused chunk 1.
        let refusal = ProtocolError(
            .rateLimited, "more than 2 upload chunks unacknowledged", ref: "upload", id: "p1", file: 0,
            held: 32_768, offset: 32_768)
        harness.host(.error(seq: harness.nextSeq(), refusal))
        #expect(harness.reads.isEmpty, "chunk 0 is still in flight: its acknowledgement is awaited first")
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 32_768))
        #expect(harness.reads.map(\.offset) == [32_768, 65_536], "then a full window from what the host holds")
        sendReads(&harness)
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 65_536))
        #expect(harness.reads.map(\.offset) == [98_304], "one slot freed, one chunk: never more than 2 in flight")
    }

    @Test func chunksRefusedBehindAPacingRefusalAreCountedOutNotAStop() {
        var harness = MachineHarness()
        harness.welcome()
        let picker = ModalDescription.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 1_000_000)
        harness.present("p1", picker, uploads: UploadOffer(window: 3))
        let file = PickedFileInfo(
            name: "cat.png", mimeType: "image/png", size: 200_000, sha256: String(repeating: "a", count: 64))
        harness.handle(.picked(id: "p1", files: [file]))
        #expect(harness.reads.map(\.offset) == [0, 32_768, 65_536])
        sendReads(&harness)
        let paced = ProtocolError(
            .rateLimited, "more than 3 upload chunks unacknowledged", ref: "upload", id: "p1", file: 0,
            held: 32_768, offset: 32_768)
        harness.host(.error(seq: harness.nextSeq(), paced))
        // Chunk 2 was sent before the client knew: it does not continue the bytes held.
        let behind = ProtocolError(
            .uploadInvalid, "offset 65536 does not continue file 0 (the host holds 32768 bytes)", ref: "upload",
            id: "p1", file: 0, held: 32_768, offset: 65_536)
        harness.host(.error(seq: harness.nextSeq(), behind))
        #expect(harness.reads.isEmpty, "chunk 0 is still in flight")
        #expect(!harness.updates.contains { if case .uploadStopped = $0 { true } else { false } })
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 32_768))
        #expect(harness.reads.map(\.offset) == [32_768, 65_536, 98_304])
        #expect(!harness.updates.contains { if case .uploadStopped = $0 { true } else { false } })
    }

    /// §7: after a refusal a file goes on from the `held` of its last error, even when that is
    /// less than was acknowledged (the host dropped what it held): going on from the
    /// acknowledgement instead would not continue the host's bytes and be refused again.
    @Test func aPacingRefusalHoldingLessThanAcknowledgedGoesOnFromHeld() {
        var harness = MachineHarness()
        harness.welcome()
        let picker = ModalDescription.photoPicker(selectionLimit: 1, filter: ["image"], maxBytes: 1_000_000)
        harness.present("p1", picker, uploads: UploadOffer(window: 2))
        let file = PickedFileInfo(
            name: "cat.png", mimeType: "image/png", size: 200_000, sha256: String(repeating: "a", count: 64))
        harness.handle(.picked(id: "p1", files: [file]))
        sendReads(&harness)
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "p1", file: 0, received: 32_768))
        #expect(harness.reads.map(\.offset) == [65_536])
        sendReads(&harness)
        // In flight: the chunks at 32,768 and 65,536. The host dropped the file's bytes.
        let paced = ProtocolError(
            .rateLimited, "more than 2 upload chunks unacknowledged", ref: "upload", id: "p1", file: 0,
            held: 0, offset: 65_536)
        harness.host(.error(seq: harness.nextSeq(), paced))
        let behind = ProtocolError(
            .uploadInvalid, "offset 32768 does not continue file 0 (the host holds 0 bytes)", ref: "upload",
            id: "p1", file: 0, held: 0, offset: 32_768)
        harness.host(.error(seq: harness.nextSeq(), behind))
        #expect(harness.reads.map(\.offset) == [0, 32_768], "from what the host holds: 0, not the 32,768 acknowledged")
        #expect(!harness.updates.contains { if case .uploadStopped = $0 { true } else { false } })
    }

    @Test func aHostRestartEndsEveryModalAndDropsKeptAnswersAsRestarted() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.present("m2", .actionSheet(title: "Pick", message: nil, source: nil, actions: [ActionSpec(title: "A")]))
        harness.handle(.answered(id: "m2", .answer(.action(index: 0, textFields: []))))
        harness.handle(.linkClosed(attempt: 1, code: 1001, reason: "host shutting down"))
        harness.advance(2)
        harness.welcome("s2", resumed: false)
        #expect(harness.ends.map(\.0) == ["m1", "m2"])
        #expect(harness.ends.allSatisfy { $0.1 == .lost(.restarted) })
        #expect(harness.updates.contains(.answerDropped(id: "m2", .restarted)))
        #expect(harness.results("m2").count == 1, "never sent to the new session")
        #expect(harness.machine.keptAnswers.isEmpty)
        #expect(harness.persisted?.session == "s2")
        #expect(harness.persisted?.outbox == [])
    }

    @Test func aFreshSessionAfterOneIsSaidEvenWithNothingShownRestartedOrExpired() {
        var harness = MachineHarness()
        harness.welcome()
        #expect(
            !harness.updates.contains { if case .sessionReplaced = $0 { true } else { false } }, "the first welcome")
        harness.handle(.linkClosed(attempt: 1, code: 1006, reason: ""))
        harness.advance(6)
        harness.welcome("s2", resumed: false)
        #expect(
            harness.updates.filter { if case .sessionReplaced = $0 { true } else { false } } == [
                .sessionReplaced(.restarted)
            ])
        let replaced = harness.updates.firstIndex(of: .sessionReplaced(.restarted)) ?? 0
        let connected = harness.updates.lastIndex(of: .connection(.connected(resumed: false))) ?? 0
        #expect(replaced < connected, "said before the connection is told")
        harness.handle(.linkClosed(attempt: harness.attempt, code: 1006, reason: ""))
        for _ in 0..<20 where harness.now < 140 {
            harness.advance(6)
            harness.handle(.linkFailed(attempt: harness.attempt, .refused))
        }
        harness.advance(6)
        harness.welcome("s3", resumed: false)
        #expect(
            harness.updates.last { if case .sessionReplaced = $0 { true } else { false } } == .sessionReplaced(.expired)
        )
    }

    @Test func aSessionThatExpiredWhileAwaySaysExpired() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.handle(.answered(id: "m1", .failure(.cancelled, nil)))
        harness.handle(.linkClosed(attempt: 1, code: 1006, reason: ""))
        // Every attempt for 70 s is refused.
        for _ in 0..<20 where harness.now < 70 {
            harness.advance(6)
            harness.handle(.linkFailed(attempt: harness.attempt, .refused))
        }
        harness.advance(6)
        harness.welcome("s2", resumed: false)
        #expect(harness.ends.map(\.1) == [.lost(.expired)])
        #expect(harness.updates.contains(.answerDropped(id: "m1", .expired)))
    }

    @Test func aModalTheResumedHostDoesNotPresentAgainEndedWhileAway() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.present("m2")
        harness.drop()
        harness.welcome("s1", resumed: true)
        harness.host(.controls(seq: harness.nextSeq(), items: []))
        harness.present("m2")
        harness.host(.status(seq: harness.nextSeq(), level: .info, text: "after"))
        #expect(harness.ends.map(\.0) == ["m1"])
        #expect(harness.ends.map(\.1) == [.lost(.ended)])
        #expect(harness.machine.forms.map(\.id) == ["m2"])
    }

    @Test func keptAnswersSurviveAClientRestartThroughTheStore() throws {
        var first = MachineHarness()
        first.welcome()
        first.present("m1")
        first.handle(.answered(id: "m1", .failure(.cancelled, "changed my mind")))
        let stored = try #require(first.persisted).encoded()
        #expect(stored.contains("s1"))
        let snapshot = try #require(ClientSnapshot.decode(stored))
        var second = MachineHarness(snapshot: snapshot)
        second.handle(.linkOpened(attempt: 1))
        #expect(second.hello(on: 1)?.resumeSession == "s1")
        #expect(second.hello(on: 1)?.resumeLastSeq == nil, "a restarted client does not know what it showed")
        second.host(.welcome(session: "s1", resumed: true, retentionSeconds: 60))
        #expect(second.results("m1") == [.failure(id: "m1", code: .cancelled, message: "changed my mind")])
        second.present("m1")
        #expect(second.updates.contains { if case .present(_, answered: true) = $0 { true } else { false } })
    }
}
