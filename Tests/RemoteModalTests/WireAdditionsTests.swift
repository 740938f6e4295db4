import Foundation
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

/// The errors a client got, with the modal, file and held bytes they name.
private func refusals(_ client: TestClient) -> [ProtocolError] {
    client.received.compactMap { if case .error(_, let error) = $0 { error } else { nil } }
}

private func chunk(_ id: String, offset: Int, bytes: Int, size: Int, last: Bool = false) -> ClientMessage {
    .upload(
        UploadChunk(
            id: id, file: 0, name: "a.png", mimeType: "image/png", size: size, offset: offset,
            data: Data(offset == 0 ? png([UInt8](repeating: 7, count: bytes)) : [UInt8](repeating: 7, count: bytes))
                .base64EncodedString(), last: last))
}

@Suite("Wire additions: errors that say what they concern, the end of a resume, answers judged on their own fields")
struct WireAdditionsTests {
    @Test func anErrorAboutAModalNamesIt() {
        let harness = HostHarness()
        let client = harness.connect()
        _ = signInAlert(on: harness.session(of: client)).subscribe()
        harness.settle()
        // Refused by the decoder (no `value`), by the kind (three text fields), by the rule,
        // an `input` of the wrong length, and an id never presented.
        client.send(raw: #"{"type":"result","id":"m1"}"#)
        client.send(alertResult("m1", action: 1, textFields: ["a", "b", "c"]))
        client.send(.input(id: "m1", textFields: ["a"]))
        client.send(alertResult("m9", action: 0, textFields: ["", ""]))
        harness.settle()
        let errors = refusals(client)
        #expect(errors.map(\.code) == [.badMessage, .badMessage, .badMessage, .unknownModal])
        #expect(errors.map(\.id) == ["m1", "m1", "m1", "m9"])
        #expect(errors.map(\.ref) == ["result", "result", "input", "result"])
        // On the wire, beside `ref`.
        #expect(client.frames.contains { $0.contains(#""ref":"input","id":"m1"}"#) })
        // Not an error about a modal: no `id`; and an id no host could have sent is not echoed.
        client.send(.event(control: "x"))
        client.send(raw: #"{"type":"nope","id":"m1"}"#)
        client.send(raw: #"{"type":"result","id":""# + String(repeating: "x", count: 65) + #""}"#)
        harness.settle()
        #expect(refusals(client).suffix(2).map(\.id) == [nil, nil])
    }

    @Test func anUploadRefusalSaysTheFileAndTheBytesHeld() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))).asObservable().subscribe()
        harness.settle()
        client.send(chunk("m1", offset: 0, bytes: 32_768, size: 100_000))
        harness.settle()
        // An offset that does not continue the file: the bytes held stay, and say where to go on.
        client.send(chunk("m1", offset: 50_000, bytes: 10, size: 100_000))
        // A chunk that is not base64: refused without dropping anything.
        client.send(
            raw:
                #"{"type":"upload","id":"m1","file":0,"name":"a.png","mimeType":"image/png","size":100000,"offset":32768,"data":"!!","last":false}"#
        )
        // A file that changes its size: its bytes are dropped, so 0 is held.
        client.send(chunk("m1", offset: 32_768, bytes: 10, size: 99_999))
        harness.settle()
        let errors = refusals(client)
        #expect(errors.map(\.code) == [.uploadInvalid, .uploadInvalid, .uploadInvalid])
        #expect(errors.map(\.id) == ["m1", "m1", "m1"])
        #expect(errors.map(\.file) == [0, 0, 0])
        #expect(errors.map(\.held) == [32_768, 32_768, 0])
        // Which chunk of those in flight was refused: its offset.
        #expect(errors.map(\.offset) == [50_000, 32_768, 32_768])
        #expect(client.frames.contains { $0.contains(#""id":"m1","file":0,"offset":50000,"held":32768}"#) })
    }

    @Test func aResumeEndsWithResumedAfterEverythingItReSends() {
        let harness = HostHarness()
        let client = harness.connect()
        _ = signInAlert(on: harness.session(of: client)).subscribe()
        harness.session(of: client).notify("hello")
        harness.settle()
        #expect(!client.received.contains { if case .resumed = $0 { true } else { false } })
        client.send(.input(id: "m1", textFields: ["ann@example.com", "pw"]))
        harness.settle()
        client.disconnect()
        harness.settle()
        let back = harness.transport.connect()
        back.send(
            .hello(
                Hello(
                    client: ClientDescription(kind: "test", name: "test"), capabilities: ["alert"],
                    resumeSession: client.session, resumeLastSeq: 1)))
        harness.settle()
        let types = back.received.map(\.type)
        // welcome, controls, the re-sent present, its update (the password was forgotten),
        // the status after lastSeq, then the end.
        #expect(types == ["welcome", "controls", "present", "update", "status", "resumed"])
        let seqs = back.received.compactMap(\.seq)
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
        guard case .resumed(let seq)? = back.received.last else {
            Issue.record("no resumed")
            return
        }
        #expect(seq == seqs.max())
        #expect(back.frames.last == #"{"type":"resumed","seq":\#(seq)}"#)
    }

    @Test func theIssuesAnswerIsAcceptedStraightAfterTheResume() {
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = signInAlert(on: harness.session(of: client)).subscribe(outcome.observer())
        harness.settle()
        client.send(.input(id: "m1", textFields: ["ann@example.com", "pw"]))
        harness.settle()
        client.disconnect()
        harness.settle()
        let back = harness.connect(resume: client.session)
        // The host forgot the password: Sign In comes back disabled...
        #expect(back.presents.first?.modal.actions?.map(\.enabled) == [true, false])
        // ...and the answer the issue quotes, sent without an `input` first, is accepted.
        back.send(raw: #"{"type":"result","id":"m1","value":{"action":1,"textFields":["ann@example.com","pw"]}}"#)
        harness.settle()
        #expect(refusals(back).isEmpty)
        #expect(outcome.elements == ["ann@example.com"])
        #expect(back.dismissals.map(\.reason) == [.resolved])
    }

    @Test func aRuleThatRefusesTheAnswersOwnFieldsStillRefusesWithV1sCode() {
        // Told disabled and refused by its rule on the answer's fields: `bad_message`, the
        // code a v1 client got for this before.
        let harness = HostHarness()
        let client = harness.connect()
        let outcome = Outcome<String>()
        _ = RemoteModal.alert(
            String.self, presenter: .session(harness.session(of: client)), title: "Approve?",
            actions: [
                .cancel(title: "No", mapTo: "no"),
                DialogAction.default(title: "Yes", mapTo: "yes").enabledIf { _ in false },
            ]
        ).asObservable().subscribe(outcome.observer())
        harness.settle()
        client.send(alertResult("m1", action: 1))
        harness.settle()
        #expect(refusals(client).map(\.code) == [.badMessage])
        #expect(!outcome.finished)
    }
}
