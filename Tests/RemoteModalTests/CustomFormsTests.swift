import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

@Suite("Custom modals as Maybe, Completable and Observable")
struct CustomFormsTests {
    @Test func maybeEmptyForNullAndValueOtherwise() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["custom:signature"])
        let presenter = Presenter.session(harness.session(of: client))
        let empty = Outcome<Signature.Result>()
        let signed = Outcome<Signature.Result>()
        _ = RemoteModal.customMaybe(Signature.self, payload: .init(prompt: "a"), presenter: presenter)
            .asObservable().subscribe(empty.observer())
        _ = RemoteModal.customMaybe(Signature.self, payload: .init(prompt: "b"), presenter: presenter)
            .asObservable().subscribe(signed.observer())
        harness.settle()
        #expect(client.presents.map(\.modal.kind) == ["custom", "custom"])
        client.send(.result(id: "m1", value: .null))
        client.send(.result(id: "m2", value: ["nom": "Ann"]))
        harness.settle()
        #expect(empty.elements.isEmpty && empty.completed)
        #expect(client.errors == [.badMessage])
        #expect(!signed.finished)
        client.send(.result(id: "m2", value: ["name": "Ann"]))
        harness.settle()
        #expect(signed.elements == [Signature.Result(name: "Ann")] && signed.completed)
    }

    @Test func completableCompletesOnAnyResultAndFailsOnFailure() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["custom:signature"])
        let presenter = Presenter.session(harness.session(of: client))
        let done = Outcome<Never>()
        let failed = Outcome<Never>()
        _ = RemoteModal.customCompletable(Signature.self, payload: .init(prompt: "a"), presenter: presenter)
            .subscribe(done.observer())
        _ = RemoteModal.customCompletable(Signature.self, payload: .init(prompt: "b"), presenter: presenter)
            .subscribe(failed.observer())
        harness.settle()
        client.send(.result(id: "m1", value: "anything"))
        client.send(.failure(id: "m2", code: .cancelled, message: nil))
        harness.settle()
        #expect(done.completed)
        #expect(failed.error == .cancelled)
    }

    @Test func observableEmitsEachResultOfTheArray() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["custom:signature"])
        let outcome = Outcome<Signature.Result>()
        _ = RemoteModal.customObservable(
            Signature.self, payload: .init(prompt: "all"), presenter: .session(harness.session(of: client))
        ).subscribe(outcome.observer())
        harness.settle()
        client.send(.result(id: "m1", value: [["name": "Ann"], ["name": "Bob"]]))
        harness.settle()
        #expect(outcome.elements == [Signature.Result(name: "Ann"), Signature.Result(name: "Bob")])
        #expect(outcome.completed)
    }
}
