import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

@Suite("DialogAction.flatMapTo with Single, Maybe and Completable, as RxModal")
struct DialogActionTraitTests {
    /// RxModal's README example: an action sheet whose actions lead to the mail or the
    /// message composer (two Singles of different results), erased to `Void`.
    @Test func actionSheetLeadsToAComposer() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["actionSheet", "mailComposer", "messageComposer"])
        let presenter = Presenter.session(harness.session(of: client))
        let mailComposer = RemoteModal.mailComposer(presenter: presenter) {
            $0.to = ["rxmodal@rxswiftcommunity.org"]
            $0.body = "Hello World!"
        }
        let messageComposer = RemoteModal.messageComposer(presenter: presenter) {
            $0.recipients = ["0639981337"]
            $0.body = "Hello World!"
        }
        let outcome = Outcome<Void>()
        _ = RemoteModal.actionSheet(
            presenter: presenter, source: "contactUs", title: nil,
            actions: [
                .default(title: "Mail", flatMapTo: mailComposer),
                .default(title: "Message", flatMapTo: messageComposer),
                .cancel(title: "Cancel"),
            ]
        ).subscribe(outcome.observer())
        harness.settle()
        #expect(client.presents.map(\.modal.kind) == ["actionSheet"])
        client.send(alertResult("m1", action: 1))
        harness.settle()
        #expect(client.presents.map(\.modal.kind) == ["actionSheet", "messageComposer"])
        guard case .messageComposer(let recipients, _, let body) = client.presents.last?.modal else {
            Issue.record("no message composer")
            return
        }
        #expect(recipients == ["0639981337"] && body == "Hello World!")
        #expect(!outcome.finished)
        client.send(.result(id: "m2", value: ["status": "sent"]))
        harness.settle()
        #expect(outcome.elements.count == 1)
        #expect(outcome.completed)
    }

    @Test func typedTraitsKeepTheirValues() {
        let harness = HostHarness()
        let client = harness.connect()
        let presenter = Presenter.session(harness.session(of: client))
        let saved = Outcome<String>()
        _ = RemoteModal.alert(
            presenter: presenter, title: "Save?",
            actions: [
                .preferred(.default(title: "Single", flatMapTo: Single.just("single"))),
                .cancel(title: "Maybe", flatMapTo: Maybe<String>.empty()),
                .destructive(title: "Completable", flatMapTo: Completable.error(RemoteModalError.cancelled)),
            ]
        ).subscribe(saved.observer())
        harness.settle()
        #expect(client.presents.first?.modal.actions?.map(\.preferred) == [true, false, false])
        client.send(alertResult("m1", action: 0))
        harness.settle()
        #expect(saved.elements == ["single"])
        #expect(saved.completed)
    }

    @Test(arguments: [(1, "completed"), (2, "cancelled")])
    func maybeAndCompletableEndWithoutAValue(action: Int, expected: String) {
        let harness = HostHarness()
        let client = harness.connect()
        let presenter = Presenter.session(harness.session(of: client))
        let outcome = Outcome<String>()
        _ = RemoteModal.alert(
            presenter: presenter, title: "Save?",
            actions: [
                .default(title: "Single", flatMapTo: Single.just("single")),
                .cancel(title: "Maybe", flatMapTo: Maybe<String>.empty()),
                .destructive(title: "Completable", flatMapTo: Completable.error(RemoteModalError.cancelled)),
            ]
        ).subscribe(outcome.observer())
        harness.settle()
        client.send(alertResult("m1", action: action))
        harness.settle()
        #expect(outcome.elements.isEmpty)
        #expect((outcome.completed ? "completed" : outcome.error.map { "\($0)" }) == expected)
    }
}
