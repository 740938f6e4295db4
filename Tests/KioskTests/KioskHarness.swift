import Foundation
import RemoteModalClient
import RemoteModalKiosk
import RemoteModalProtocol

/// The kiosk's model on the real client core's state machine, in virtual time without a
/// socket: host messages go through `ClientStateMachine` (seq, resume, outbox, watchdogs),
/// its updates into `KioskModel`; keys come out as the protocol messages the machine sends.
struct Kiosk {
    var model: KioskModel
    var machine: ClientStateMachine
    var sent: [ClientMessage] = []
    var updates: [ClientUpdate] = []
    var now = 0.0
    var attempt = 0
    var seq = 0
    /// Chunks the machine asked to read, answered by `upload`.
    var reads: [(id: String, file: Int, offset: Int, length: Int)] = []
    /// The paths asked for by the last `pick` intent.
    var picked: [(id: String, paths: [String])] = []

    init(name: String = "lobby-1", group: String? = "lobby") {
        model = KioskModel(name: name, group: group, address: "ws://127.0.0.1:8080/ws", clock: { "12:00:00" })
        machine = ClientStateMachine(
            configuration: ClientConfiguration(client: ClientDescription(kind: "kiosk", name: name, group: group)),
            jitter: { 0.5 })
        run(machine.handle(.storeLoaded(nil)))
    }

    mutating func run(_ actions: [ClientAction]) {
        for action in actions {
            switch action {
            case .openLink(let number): attempt = number
            case .send(_, let text):
                if let message = try? ClientMessage.decode(text) { sent.append(message) }
            case .readChunk(let id, let file, let offset, let length): reads.append((id, file, offset, length))
            case .emit(let update):
                updates.append(update)
                model.apply(update, now: now)
            default: break
            }
        }
    }

    /// A host message on the current attempt; a `welcome` opens the attempt first.
    mutating func receive(_ message: HostMessage) {
        if case .welcome = message, !machine.isConnected {
            // Waiting: the backoff runs out (ignored while the first attempt is connecting).
            run(machine.handle(.timerFired(.reconnect)))
            run(machine.handle(.linkOpened(attempt: attempt)))
        }
        run(machine.handle(.textReceived(attempt: attempt, message.encode())))
    }

    /// A frame of the host as it came, on the current attempt (values a newer host may send).
    mutating func receive(raw text: String) {
        run(machine.handle(.textReceived(attempt: attempt, text)))
    }

    /// The next `seq` of the host.
    mutating func nextSeq() -> Int {
        seq += 1
        return seq
    }

    /// The link drops (1006).
    mutating func drop(code: UInt16 = 1006) {
        run(machine.handle(.linkClosed(attempt: attempt, code: code, reason: "")))
    }

    /// Time passes (only the retention timer is fired here).
    mutating func advance(_ seconds: Double) { now += seconds }

    mutating func fire(_ timer: ClientTimer) { run(machine.handle(.timerFired(timer))) }

    /// A key; returns what the machine sent for it.
    @discardableResult
    mutating func press(_ key: Key) -> [ClientMessage] {
        let before = sent.count
        for intent in model.press(key, now: now) {
            switch intent {
            case .answer(let id, let reply): run(machine.handle(.answered(id: id, reply)))
            case .type(let id, let textFields): run(machine.handle(.typed(id: id, textFields: textFields)))
            case .tap(let control): run(machine.handle(.tapped(control: control)))
            case .pick(let id, let paths): picked.append((id, paths))
            case .retryUpload(let id): run(machine.handle(.retryUpload(id: id)))
            case .retryNow: run(machine.handle(.retryNow))
            case .quit: break
            }
        }
        return Array(sent[before...])
    }

    /// Types characters one key each.
    @discardableResult
    mutating func type(_ text: String) -> [ClientMessage] {
        var all: [ClientMessage] = []
        for character in text { all += press(.character(character)) }
        return all
    }

    /// The files of a picker are picked and hashed (the kiosk's `pick` intent done): the
    /// machine starts the upload; every chunk it reads is answered with zeros.
    mutating func upload(_ files: [PickedFileInfo], id: String = "m1") {
        model.uploadStarted(id: id, names: files.map(\.name), total: files.reduce(0) { $0 + $1.size })
        run(machine.handle(.picked(id: id, files: files)))
        readAll()
    }

    mutating func readAll() {
        while !reads.isEmpty {
            let read = reads.removeFirst()
            run(
                machine.handle(
                    .chunkRead(
                        id: read.id, file: read.file, offset: read.offset,
                        bytes: [UInt8](repeating: 0, count: read.length))))
        }
    }

    mutating func uploadFailed(id: String, error: String) { model.pickFailed(id: id, error: error) }

    var modals: [KioskModel.OpenModal] { model.modals }
    var current: KioskModel.OpenModal? { model.current }
    var notices: [Notice] { model.notices }
    var banner: String? { model.banner }

    func lines(width: Int = 80, height: Int = 24) -> [String] {
        KioskScreen.lines(model, width: width, height: height)
    }

    func screen(width: Int = 80, height: Int = 24) -> String {
        lines(width: width, height: height).joined(separator: "\n")
    }

    /// A kiosk welcomed with controls and, if given, a modal on screen (id `m1`).
    static func welcomed(_ modal: ModalDescription? = nil, controls: [ControlItem]? = nil) -> Kiosk {
        var kiosk = Kiosk()
        kiosk.receive(.welcome(session: "s1", resumed: false, retentionSeconds: 60))
        kiosk.receive(
            .controls(
                seq: 1,
                items: controls ?? [
                    ControlItem(id: "signIn", title: "Sign in"), ControlItem(id: "contact", title: "Contact us"),
                ]))
        if let modal { kiosk.receive(.present(seq: 2, id: "m1", modal: modal)) }
        kiosk.seq = 2
        return kiosk
    }
}

let signIn = ModalDescription.alert(
    title: "Sign in", message: "Please sign in",
    textFields: [
        TextFieldSpec(kind: .email, placeholder: "e-mail"), TextFieldSpec(kind: .password, placeholder: "password"),
    ],
    actions: [
        ActionSpec(title: "Cancel", style: .cancel), ActionSpec(title: "Sign In", enabled: false, preferred: true),
    ])

/// A kiosk welcomed with the two demo controls and, if given, a modal `m1` (seq 1 and 2).
func welcomed(_ modal: ModalDescription? = nil) -> Kiosk { Kiosk.welcomed(modal) }

extension KioskScreen {
    static func lines(_ kiosk: Kiosk, width: Int, height: Int) -> [String] {
        lines(kiosk.model, width: width, height: height)
    }

    static func render(_ kiosk: Kiosk, width: Int, height: Int, appearance: Appearance) -> [String] {
        render(kiosk.model, width: width, height: height, appearance: appearance)
    }
}
