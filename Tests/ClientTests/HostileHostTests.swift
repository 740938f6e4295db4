import RemoteModalClient
import RemoteModalProtocol
import Testing

/// A host that sends what it should not: a clear skip or answer, never a crash, never
/// unbounded memory.
@Suite("Client machine: a hostile host")
struct HostileHostTests {
    @Test func aDuplicateSeqIsProcessedOnce() {
        var harness = MachineHarness()
        harness.welcome()
        harness.host(.status(seq: 5, level: .info, text: "once"))
        harness.host(.status(seq: 5, level: .info, text: "once"))
        harness.host(.status(seq: 3, level: .info, text: "older"))
        harness.host(.status(seq: 6, level: .info, text: "newer"))
        #expect(harness.statuses == ["once", "newer"])
        #expect(harness.machine.lastProcessedSeq == 6)
    }

    @Test func aPresentForAnIdAlreadyShownOpensNoSecondDialog() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.present("m1")
        #expect(harness.presents.count == 1)
        #expect(harness.represents.count == 1)
        #expect(harness.machine.forms.count == 1)
    }

    @Test func anUnknownKindIsAnsweredUnsupportedAndSkipped() {
        var harness = MachineHarness()
        harness.welcome()
        harness.host(raw: #"{"type":"present","seq":1,"id":"m9","modal":{"kind":"hologram"}}"#)
        #expect(
            harness.messages(on: 1) == [.failure(id: "m9", code: .unsupported, message: "this client cannot show it")])
        #expect(harness.skipped.count == 1)
        #expect(harness.presents.isEmpty)
        harness.host(raw: #"{"type":"present","seq":1,"id":"m9","modal":{"kind":"hologram"}}"#)
        #expect(harness.messages(on: 1).count == 1, "the same seq is not answered twice")
    }

    @Test(arguments: [
        "{", "[]", "null", #"{"type":42}"#, #"{"type":"status","seq":"x"}"#, #"{"type":"teleport","seq":2}"#,
        String(repeating: "[", count: 10_000),
    ])
    func malformedMessagesAreSkipped(text: String) {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.host(raw: text)
        #expect(harness.skipped.count == 1)
        #expect(harness.machine.forms.map(\.id) == ["m1"])
        #expect(harness.machine.isConnected)
    }

    /// Growable codes are open (docs/protocol.md): a dismiss whose reason a newer host added
    /// still ends its modal; the reason is kept as it came.
    @Test func aDismissWithAReasonFromANewerHostEndsTheModal() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1")
        harness.host(raw: #"{"type":"dismiss","seq":2,"id":"m1","reason":"bored"}"#)
        #expect(harness.skipped.isEmpty)
        #expect(harness.machine.forms.isEmpty)
        #expect(harness.machine.isConnected)
    }

    @Test func aGiganticMessageIsSkippedWithoutBeingDecoded() {
        var harness = MachineHarness(limits: ClientLimits(messageBytes: 4_096))
        harness.welcome()
        let text =
            "{\"type\":\"status\",\"seq\":1,\"level\":\"info\",\"text\":\"\(String(repeating: "x", count: 10_000))\"}"
        harness.host(raw: text)
        #expect(harness.statuses.isEmpty)
        #expect(harness.skipped.first?.contains("bytes") == true)
    }

    @Test func endlessPresentsAreBoundedAndThoseBeyondAreAnsweredFailed() {
        var harness = MachineHarness()
        harness.welcome()
        for index in 0..<1_000 { harness.present("m\(index)") }
        #expect(harness.machine.forms.count == 64)
        let failed = harness.messages(on: 1).filter { if case .failure(_, .failed, _) = $0 { true } else { false } }
        #expect(failed.count == 1_000 - 64)
    }

    @Test func endlessPresentAndDismissKeepsNothing() {
        var harness = MachineHarness()
        harness.welcome()
        for index in 0..<5_000 {
            harness.present("m\(index)")
            harness.handle(.answered(id: "m\(index)", .failure(.cancelled, nil)))
            harness.dismiss("m\(index)")
            harness.updates = []
            harness.sent = []
        }
        #expect(harness.machine.forms.isEmpty)
        #expect(harness.machine.keptAnswers.isEmpty)
        #expect(harness.persisted?.outbox.isEmpty == true)
    }

    @Test func dismissAndUpdateForUnknownIdsAreIgnored() {
        var harness = MachineHarness()
        harness.welcome()
        harness.dismiss("ghost")
        harness.host(.update(seq: harness.nextSeq(), id: "ghost", actions: [true]))
        harness.host(.uploadAck(seq: harness.nextSeq(), id: "ghost", file: 3, received: 1 << 40))
        #expect(harness.ends.isEmpty)
        #expect(harness.updates.filter { if case .update = $0 { true } else { false } }.isEmpty)
    }

    @Test func controlCharactersArriveIntactAndPrintableTextCleansThem() throws {
        var harness = MachineHarness()
        harness.welcome()
        let title = "Sign\u{1B}[2J in\u{07}\u{9B}"
        harness.present(
            "m1", .alert(title: title, message: nil, textFields: [], actions: [ActionSpec(title: "OK")]))
        let form = try #require(harness.presents.first)
        #expect(form.title == title)
        #expect(PrintableText.clean(form.title) == "Sign\u{FFFD}[2J in\u{FFFD}\u{FFFD}")
        #expect(PrintableText.clean("a\nb\tc", multiline: true) == "a\nb\tc")
    }

    @Test func aWelcomeOnAWelcomedConnectionIsSkipped() {
        var harness = MachineHarness()
        harness.welcome()
        harness.host(.welcome(session: "other", resumed: false, retentionSeconds: 1))
        #expect(harness.machine.sessionID == "s1")
        #expect(harness.skipped == ["a second welcome"])
    }

    @Test func theOutboxIsBounded() {
        var harness = MachineHarness(limits: ClientLimits(shownModals: 64, outbox: 4))
        harness.handle(.linkOpened(attempt: 1))
        harness.host(.welcome(session: "s1", resumed: false, retentionSeconds: 60))
        for index in 0..<10 {
            harness.present("m\(index)")
            harness.handle(.answered(id: "m\(index)", .failure(.cancelled, nil)))
        }
        #expect(harness.machine.keptAnswers.count == 4)
        #expect(harness.updates.filter { if case .answerDropped = $0 { true } else { false } }.count == 6)
    }
}
