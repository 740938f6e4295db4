import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

@Suite("DialogTextField configuration reaches the client")
struct TextFieldConfigurationTests {
    @Test func configuredFieldsAreSentAsConfigured() {
        let harness = HostHarness()
        let client = harness.connect()
        _ = RemoteModal.alert(
            String.self, presenter: .session(harness.session(of: client)), title: "Sign in",
            textFields: [
                DialogTextField.email { $0.placeholder = "e-mail" },
                DialogTextField.password { $0.placeholder = "password" },
                DialogTextField { field in
                    field.text = "12"
                    field.keyboard = .numeric
                    field.contentType = "one-time-code"
                },
            ],
            actions: [.cancel(title: "Cancel")]
        ).subscribe()
        harness.settle()
        guard case .alert(_, _, let fields, _) = client.presents.first?.modal else {
            Issue.record("no alert was presented")
            return
        }
        #expect(
            fields == [
                TextFieldSpec(
                    kind: .email, placeholder: "e-mail", keyboard: .email,
                    autocapitalization: TextFieldAutocapitalization.none, contentType: "email"),
                TextFieldSpec(
                    kind: .password, placeholder: "password", autocapitalization: TextFieldAutocapitalization.none,
                    contentType: "current-password", isSecureTextEntry: true),
                TextFieldSpec(kind: .plain, text: "12", keyboard: .numeric, contentType: "one-time-code"),
            ])
    }

    @Test func unconfiguredFieldsKeepTheirOldJSON() {
        let field = DialogTextField.plain(placeholder: "name")
        var writer = JSONWriter()
        ModalDescription.alert(title: nil, message: nil, textFields: [field.spec], actions: [ActionSpec(title: "OK")])
            .write(to: &writer)
        #expect(writer.output.contains(#"{"kind":"plain","placeholder":"name","text":null}"#))
    }
}
