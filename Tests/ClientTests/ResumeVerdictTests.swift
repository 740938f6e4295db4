import RemoteModalClient
import RemoteModalProtocol
import Testing

/// A modal answered before a drop and not presented again by the resume: with the heartbeat
/// the client waits for the host's verdict on the answer it sent again (issue 32's cold trial:
/// a kiosk that approved while cut off, after another screen had rejected, said "the host
/// took your answer").
struct ResumeVerdictTests {
    static let approval = ModalDescription.alert(
        title: "Approve request?", message: nil, textFields: [],
        actions: [ActionSpec(title: "Approve"), ActionSpec(title: "Reject", style: .destructive)])

    /// m1 answered, the link dropped, resumed with the heartbeat; the host presents nothing again.
    static func answeredThenResumed() -> MachineHarness {
        var harness = MachineHarness()
        harness.welcome(heartbeat: .standard)
        harness.present("m1", approval)
        harness.handle(.linkClosed(attempt: harness.attempt, code: 1006, reason: ""))
        harness.handle(.answered(id: "m1", .answer(.action(index: 0, textFields: []))))
        harness.advance(harness.machine.configuration.policy.cap)
        harness.welcome("s1", resumed: true, heartbeat: .standard)
        harness.host(.controls(seq: harness.nextSeq(), items: []))
        harness.host(.resumed(seq: harness.nextSeq()))
        return harness
    }

    @Test func anAnswerSupersededWhileAwayEndsWithTheHostsReason() {
        var harness = Self.answeredThenResumed()
        #expect(harness.results("m1").count == 1, "the kept answer went with the resume")
        #expect(harness.ends.isEmpty, "judged before the host read the answer sent again")
        // The host remembers the copy another screen's answer ended, and says so.
        harness.dismiss("m1", .superseded)
        #expect(harness.ends.map(\.0) == ["m1"])
        #expect(harness.ends.map(\.1) == [.host(.superseded)])
    }

    @Test func aPongWithoutTheDismissSaysItEndedWhileAway() {
        var harness = Self.answeredThenResumed()
        harness.advance(0.5)
        #expect(harness.pings(on: harness.attempt) == 1, "a ping follows the answers sent again")
        #expect(harness.ends.isEmpty)
        harness.host(.pong(id: 1))
        #expect(harness.ends.map(\.1) == [.lost(.ended)])
    }

    @Test func aDropBeforeTheVerdictLeavesItToTheNextResume() {
        var harness = Self.answeredThenResumed()
        harness.drop()
        #expect(harness.ends.isEmpty)
        harness.welcome("s1", resumed: true, heartbeat: .standard)
        harness.host(.controls(seq: harness.nextSeq(), items: []))
        harness.host(.resumed(seq: harness.nextSeq()))
        #expect(harness.results("m1").count == 2, "sent again on this resume too")
        harness.dismiss("m1", .resolved)
        #expect(harness.ends.map(\.1) == [.host(.resolved)])
    }

    @Test func withoutTheHeartbeatItEndsAtTheResumesEnd() {
        var harness = MachineHarness()
        harness.welcome()
        harness.present("m1", Self.approval)
        harness.handle(.answered(id: "m1", .answer(.action(index: 0, textFields: []))))
        harness.drop()
        harness.welcome("s1", resumed: true)
        harness.host(.controls(seq: harness.nextSeq(), items: []))
        harness.host(.resumed(seq: harness.nextSeq()))
        #expect(harness.ends.map(\.1) == [.lost(.ended)])
        #expect(harness.pings(on: harness.attempt) == 0)
    }
}
