import RemoteModalClient
import RemoteModalProtocol
import Testing

/// A form per kind: fields by meaning, choices by title or role, checks, the answer built.
@Suite("ModalForm")
struct ModalFormTests {
    @Test func anAlertIsFilledByMeaningAndAnsweredByTitle() throws {
        var form = ModalForm(id: "m1", modal: MachineHarness.signIn)
        try form.fill(.password, "pw")
        try form.fill("e-mail", "ann@example.com")
        #expect(form.textFields == ["ann@example.com", "pw"])
        #expect(throws: FormError.self) { try form.reply(choosing: "Sign In") }
        form.setActionStates([true, true])
        #expect(
            try form.reply(choosing: "Sign In") == .answer(.action(index: 1, textFields: ["ann@example.com", "pw"])))
        #expect(
            try form.reply(choosing: .role(.cancel))
                == .answer(.action(index: 0, textFields: ["ann@example.com", "pw"])))
        #expect(throws: FormError.self) { try form.fill(.phoneNumber, "1") }
        #expect(throws: FormError.self) { try form.reply(choosing: "Sign Out") }
    }

    @Test func twoFieldsOfOneMeaningAreFilledWhereTheyAre() throws {
        let modal = ModalDescription.alert(
            title: "Verify", message: nil,
            textFields: [
                TextFieldSpec(kind: .plain, placeholder: "code"), TextFieldSpec(kind: .plain, placeholder: "PIN"),
            ],
            actions: [ActionSpec(title: "OK")])
        var form = ModalForm(id: "m1", modal: modal)
        try form.fill(fieldAt: 1, "4321")
        try form.fill(fieldAt: 0, "123456")
        #expect(form.textFields == ["123456", "4321"], "by meaning both would be the first")
        #expect(throws: FormError.self) { try form.fill(fieldAt: 2, "x") }
        #expect(try form.reply(choosing: "OK") == .answer(.action(index: 0, textFields: ["123456", "4321"])))
    }

    @Test func aMailIsCheckedBeforeItIsSent() throws {
        let modal = ModalDescription.mailComposer(
            to: [], cc: [], bcc: [], subject: "Hello", body: "Hi", isHTML: false)
        var form = ModalForm(id: "m2", modal: modal)
        #expect(throws: FormError(.invalid(.to), "Add a recipient first.")) { try form.reply(choosing: "Send") }
        try form.fill(.to, "bob")
        #expect(throws: FormError(.invalid(.to), "Not a mail address: bob")) { try form.reply(choosing: "Send") }
        #expect(
            try form.reply(choosing: "Save draft")
                == .answer(.mail(status: .saved, to: ["bob"], cc: [], bcc: [], subject: "Hello", body: "Hi")),
            "a draft is not checked")
        try form.fill(.to, "bob@example.com, ann@example.com")
        let reply = try form.reply(choosing: "Send")
        #expect(
            reply
                == .answer(
                    .mail(
                        status: .sent, to: ["bob@example.com", "ann@example.com"], cc: [], bcc: [], subject: "Hello",
                        body: "Hi")))
        #expect(
            form.cancelReply
                == .answer(
                    .mail(
                        status: .cancelled, to: ["bob@example.com", "ann@example.com"], cc: [], bcc: [],
                        subject: "Hello", body: "Hi")))
    }

    @Test func aMessageNeedsARecipientThatIsANumberOrAnAddress() throws {
        var form = ModalForm(id: "m3", modal: .messageComposer(recipients: ["0639981337"], subject: nil, body: "Hello"))
        #expect(
            try form.reply(choosing: "Send")
                == .answer(.message(status: .sent, recipients: ["0639981337"], body: "Hello")))
        try form.fill(.recipients, "bob")
        #expect(throws: FormError.self) { try form.reply(choosing: "Send") }
        #expect(
            try form.reply(choosing: .role(.cancel))
                == .answer(.message(status: .cancelled, recipients: ["bob"], body: "Hello")))
    }

    @Test func pickersAndWebAuthenticationCancelWithAFailure() throws {
        let picker = ModalForm(id: "p", modal: .photoPicker(selectionLimit: 1, filter: [], maxBytes: 10))
        #expect(picker.cancelReply == .failure(.cancelled, nil))
        #expect(throws: FormError.self) { try picker.reply(choosing: "Send") }
        var native = ModalForm(
            id: "w",
            modal: .webAuthentication(url: "https://idp.example/a", callbackURL: nil, callbackURLScheme: "myapp"))
        try native.fill(.callbackURL, "myapp://cb?code=1")
        #expect(try native.reply(choosing: "Done") == .answer(.callbackURL("myapp://cb?code=1")))
    }

    @Test func anAlertWithoutCancelHasNoWayOut() {
        let approval = ModalForm(
            id: "a",
            modal: .alert(
                title: "Approve request?", message: nil, textFields: [],
                actions: [ActionSpec(title: "Approve"), ActionSpec(title: "Reject")]))
        #expect(approval.cancelReply == nil)
    }
}
