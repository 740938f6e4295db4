import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

/// RxModal's README, ported. Changes: a `presenter:` argument (there is no key window),
/// the configuration closures set a value instead of calling UIKit setters, a control's
/// `tap` instead of `rx.tap`, and a control id as the sheet's `source`.
@Suite("RxModal README examples")
struct RxModalReadmeTests {
    @Test func contactUsActionSheetLeadsToTheMailComposer() {
        let harness = PortingHarness()
        let disposeBag = DisposeBag()
        let presenter = harness.presenter
        let contactUsButton = harness.session.control("contactUs", title: "Contact us")

        // ---- ported example ----
        let mailComposer = RemoteModal.mailComposer(presenter: presenter) {
            $0.to = ["rxmodal@rxswiftcommunity.org"]
            $0.body = "Hello World!"
            $0.isHTML = false
        }
        let messageComposer = RemoteModal.messageComposer(presenter: presenter) {
            $0.recipients = ["0639981337"]
            $0.body = "Hello World!"
        }
        contactUsButton
            .tap
            .flatMapFirst {
                RemoteModal.actionSheet(
                    presenter: presenter,
                    source: contactUsButton.id,
                    title: nil,
                    actions: [
                        .default(
                            title: "Mail",
                            flatMapTo: mailComposer
                        ),
                        .default(
                            title: "Message",
                            flatMapTo: messageComposer
                        ),
                        .cancel(title: "Cancel"),
                    ])
            }
            .subscribe()
            .disposed(by: disposeBag)
        // ---- end ----

        harness.settle()
        harness.client.send(.event(control: "contactUs"))
        harness.settle()
        guard case .actionSheet(_, _, let source, let actions) = harness.client.presents.first?.modal else {
            Issue.record("no action sheet")
            return
        }
        #expect(source == "contactUs")
        #expect(actions.map(\.title) == ["Mail", "Message", "Cancel"])
        harness.choose("m1", action: 0)
        #expect(
            harness.client.presents.last?.modal
                == .mailComposer(
                    to: ["rxmodal@rxswiftcommunity.org"], cc: [], bcc: [], subject: "", body: "Hello World!",
                    isHTML: false))
        harness.client.send(.result(id: "m2", value: ["status": "sent"]))
        harness.settle()
        // The flow ended: a second tap presents the sheet again (flatMapFirst was free).
        harness.client.send(.event(control: "contactUs"))
        harness.settle()
        #expect(harness.client.presents.map(\.modal.kind) == ["actionSheet", "mailComposer", "actionSheet"])
    }

    /// The same example with RxModal's default presenter: no `presenter:` anywhere, as in
    /// the upstream README; the tap's session is `Presenter.current`, and the composer
    /// chosen from the sheet goes to the session that answered.
    @Test func contactUsWithTheDefaultPresenter() {
        let harness = PortingHarness()
        let disposeBag = DisposeBag()
        let contactUsButton = harness.session.control("contactUs", title: "Contact us")

        // ---- ported example ----
        let mailComposer = RemoteModal.mailComposer {
            $0.to = ["rxmodal@rxswiftcommunity.org"]
            $0.body = "Hello World!"
            $0.isHTML = false
        }
        let messageComposer = RemoteModal.messageComposer {
            $0.recipients = ["0639981337"]
            $0.body = "Hello World!"
        }
        contactUsButton
            .tap
            .flatMapFirst {
                RemoteModal.actionSheet(
                    source: contactUsButton.id,
                    title: nil,
                    actions: [
                        .default(
                            title: "Mail",
                            flatMapTo: mailComposer
                        ),
                        .default(
                            title: "Message",
                            flatMapTo: messageComposer
                        ),
                        .cancel(title: "Cancel"),
                    ])
            }
            .subscribe()
            .disposed(by: disposeBag)
        // ---- end ----

        harness.settle()
        harness.client.send(.event(control: "contactUs"))
        harness.settle()
        #expect(harness.client.presents.map(\.modal.kind) == ["actionSheet"])
        harness.choose("m1", action: 1)
        #expect(harness.client.presents.map(\.modal.kind) == ["actionSheet", "messageComposer"])
    }

    struct Credentials: Equatable {
        let email: String
        let password: String
    }

    @Test func signInAlertWithConfiguredTextFields() {
        let harness = PortingHarness()
        let signedIn = Printed()

        // ---- ported example (`textFields[0].text ?? ""` becomes `textFields[0]`) ----
        let alert = RemoteModal.alert(
            presenter: harness.presenter,
            title: "Sign in",
            message: "Please sign in using your credentials",
            textFields: [
                DialogTextField.email { $0.placeholder = "e-mail" },
                DialogTextField.password { $0.placeholder = "password" },
            ],
            actions: [
                .cancel(title: "Cancel"),
                .default(title: "Sign In") { textFields in
                    Credentials(
                        email: textFields[0],
                        password: textFields[1]
                    )
                },
            ]
        )
        // ---- end ----

        _ = alert.subscribe(onNext: { signedIn.print("\($0.email) / \($0.password)") })
        harness.settle()
        guard case .alert(let title, _, let fields, _) = harness.client.presents.first?.modal else {
            Issue.record("no alert")
            return
        }
        #expect(title == "Sign in")
        #expect(fields.map(\.placeholder) == ["e-mail", "password"])
        #expect(fields.map(\.isSecureTextEntry) == [nil, true])
        harness.choose("m1", action: 1, textFields: ["ann@example.com", "s3cret"])
        #expect(signedIn.all == ["ann@example.com / s3cret"])
    }
}
