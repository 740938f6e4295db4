import RemoteModalProtocol
import Testing

@testable import RemoteModalBench

@Suite("Sign-in cycle, one session's side")
struct SignInCycleStateMachineTests {
    static let alert = ModalDescription.alert(
        title: "Sign in", message: "Please sign in",
        textFields: [TextFieldSpec(kind: .email, placeholder: "e-mail"), TextFieldSpec(kind: .password)],
        actions: [
            ActionSpec(title: "Cancel", style: .cancel, enabled: true, preferred: false),
            ActionSpec(title: "Sign In", style: .default, enabled: false, preferred: true),
        ])

    static func controls(_ seq: Int, busy: Bool) -> String {
        HostMessage.controls(
            seq: seq,
            items: [
                ControlItem(id: "signIn", title: "Sign in", enabled: !busy, busy: busy),
                ControlItem(id: "contact", title: "Contact us"),
            ]
        ).encode()
    }

    static func present(_ seq: Int, _ id: String) -> String {
        HostMessage.present(seq: seq, id: id, modal: alert).encode()
    }

    static func dismiss(_ seq: Int, _ id: String) -> String {
        HostMessage.dismiss(seq: seq, id: id, reason: .resolved).encode()
    }

    static func status(_ seq: Int, _ text: String = "Sign in cancelled") -> String {
        HostMessage.status(seq: seq, level: .info, text: text).encode()
    }

    /// A machine past `welcome` and the first `controls`, its tap sent at time 10.
    static func started() -> SignInCycleStateMachine {
        var machine = SignInCycleStateMachine()
        #expect(
            machine.received(HostMessage.welcome(session: "s", resumed: false, retentionSeconds: 60).encode()) == .none)
        #expect(machine.received(controls(1, busy: false)) == .tap)
        machine.tapped(at: 10)
        return machine
    }

    @Test func aCycleInTheDemoHostsOrderAndInAnotherCompletesOnce() {
        var machine = Self.started()
        #expect(machine.received(Self.present(2, "m1")) == .cancel(id: "m1"))
        #expect(machine.received(Self.controls(3, busy: true)) == .none)
        #expect(machine.received(Self.dismiss(4, "m1")) == .none)
        #expect(machine.received(Self.status(5)) == .none)
        #expect(machine.received(Self.controls(6, busy: false)) == .completed(tappedAt: 10))
        machine.tapped(at: 20)
        #expect(machine.received(Self.controls(7, busy: true)) == .none)
        #expect(machine.received(Self.present(8, "m2")) == .cancel(id: "m2"))
        #expect(machine.received(Self.controls(9, busy: false)) == .none)
        #expect(machine.received(Self.status(10)) == .none)
        #expect(machine.received(Self.dismiss(11, "m2")) == .completed(tappedAt: 20))
        #expect(machine.cycles == 2)
    }

    @Test(arguments: [
        // A step twice, an error, an update, the wrong status, a stale seq, a dismiss for another modal,
        // the idle controls before the busy ones.
        [present(2, "m1"), present(3, "m2")],
        [present(2, "m1"), status(3), status(4)],
        [
            HostMessage.error(seq: 2, ProtocolError(.rateLimited, "more than 100 messages a second"))
                .encode()
        ],
        [present(2, "m1"), HostMessage.update(seq: 3, id: "m1", actions: [true, true]).encode()],
        [status(2, "Signed in as ann@example.com")],
        [present(2, "m1"), controls(2, busy: true)],
        [present(2, "m1"), dismiss(3, "m0")],
        [controls(2, busy: false)],
        ["not json"],
    ])
    func aBrokenCycleFails(_ messages: [String]) {
        var machine = Self.started()
        var last = SignInCycleStateMachine.Action.none
        for message in messages { last = machine.received(message) }
        guard case .fail = last else {
            Issue.record("\(messages) ended in \(last)")
            return
        }
        #expect(machine.cycles == 0)
    }
}
