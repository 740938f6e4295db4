import Foundation
import RemoteModalHost
import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalWebSocket

/// The host side of the chaos test: every session gets a `next` control; each tap
/// presents question N, and every value its Single emits is recorded, so a test can
/// check that each answer arrived exactly once and unchanged whatever the network did.
/// With `pickerEvery` set, every such question is a photo picker instead of an alert, so
/// uploads are cut by the faults too; its value is recorded as `P:size:sha256,...`.
public final class ChaosRecorder: Sendable {
    private let answers = Locked<[String: [Int: [String]]]>([:])
    private let failures = Locked<[String]>([])
    private let counted = Locked(0)
    private let keepAnswers: Bool
    private let pickerEvery: Int?

    /// Creates an empty recorder.
    /// - Parameters:
    ///   - keepAnswers: Whether to keep every value (the chaos test needs them; a soak keeps
    ///     only a count, so its memory reflects the host, not the recorder).
    ///   - pickerEvery: Make question N a photo picker when N is a multiple of this.
    public init(keepAnswers: Bool = true, pickerEvery: Int? = nil) {
        self.keepAnswers = keepAnswers
        self.pickerEvery = pickerEvery.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Starts the flow on every new session of a host and serves `/chaos/report`.
    /// - Parameter host: The host.
    /// - Returns: A disposable that stops it.
    public func install(on host: ModalHost) -> any Disposable {
        host.addRoute(prefix: "/chaos/report") { [self] _ in
            HTTPResponse(status: 200, contentType: "application/json", body: Data(report().utf8))
        }
        return host.sessions.subscribe(onNext: { [self] session in run(session) })
    }

    private func run(_ session: Session) {
        let counter = Locked(0)
        let name = session.client.name
        session.control("next", title: "Next question").tap
            // Taps while a question is open are ignored: a client may re-tap after a drop.
            .flatMapFirst { [self] _ -> Observable<Void> in
                let number = counter.withLock { value -> Int in
                    value += 1
                    return value
                }
                return question(number, on: session)
                    .map { value in self.record(name, number, value) }
                    .catch { error in
                        self.failures.withLock { $0.append("\(name) Q\(number): \(error)") }
                        return .empty()
                    }
            }
            .subscribe()
            .disposed(by: session.disposeBag)
    }

    private func question(_ number: Int, on session: Session) -> Observable<String> {
        if let pickerEvery, number % pickerEvery == 0 {
            return RemoteModal.photoPicker(presenter: .session(session))
                .map { files in "P:" + files.map { "\($0.size):\($0.sha256)" }.joined(separator: ",") }
                .asObservable()
        }
        return RemoteModal.alert(
            String.self, presenter: .session(session), title: "Q\(number)", textFields: [.plain()],
            actions: [.default(title: "A", map: { "A:\($0[0])" }), .default(title: "B", map: { "B:\($0[0])" })])
    }

    private func record(_ name: String, _ number: Int, _ value: String) {
        counted.withLock { $0 += 1 }
        guard keepAnswers else { return }
        answers.withLock { $0[name, default: [:]][number, default: []].append(value) }
    }

    /// `{"answers": {name: {"N": [values]}}, "failures": [...]}`.
    public func report() -> String {
        let (answers, failures) = (self.answers.withLock { $0 }, self.failures.withLock { $0 })
        var writer = JSONWriter()
        writer.raw("{\"answers\":{")
        for (index, (name, questions)) in answers.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { writer.raw(",") }
            writer.string(name)
            writer.raw(":{")
            for (offset, (number, values)) in questions.sorted(by: { $0.key < $1.key }).enumerated() {
                if offset > 0 { writer.raw(",") }
                writer.string(String(number))
                writer.raw(":")
                writer.strings(values)
            }
            writer.raw("}")
        }
        writer.raw("},\"count\":")
        writer.int(counted.withLock { $0 })
        writer.raw(",\"failures\":")
        writer.strings(failures)
        writer.raw("}")
        return writer.output
    }
}
