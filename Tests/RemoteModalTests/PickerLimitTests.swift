import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

@Suite("Photo picker selection limits")
struct PickerLimitTests {
    /// `selectionLimit = 0` means unlimited, as PHPickerConfiguration; it used to become 1,
    /// and the host refused a second file.
    @Test func zeroMeansUnlimited() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) { $0.selectionLimit = 0 }
            .asObservable().subscribe(outcome.observer())
        harness.settle()
        guard case .photoPicker(let limit, _, _, _) = client.presents.first?.modal else {
            Issue.record("no picker was presented")
            return
        }
        #expect(limit == 0)
        let files = (0..<3).map { index in png((0..<100).map { UInt8(truncatingIfNeeded: $0 + index) }) }
        for (index, data) in files.enumerated() {
            upload(client, "m1", file: index, name: "f\(index).png", data)
        }
        harness.settle()
        #expect(!client.received.contains { if case .error = $0 { true } else { false } })
        client.send(.result(id: "m1", value: ["items": .array(files.enumerated().map { item("f\($0).png", $1) })]))
        harness.settle()
        #expect(outcome.elements.first?.count == 3)
    }

    @Test func aPositiveLimitIsStillEnforced() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client))) { $0.selectionLimit = 1 }
            .subscribe()
        harness.settle()
        upload(client, "m1", file: 1, name: "second.png", [1, 2, 3])
        harness.settle()
        #expect(client.received.contains { if case .error = $0 { true } else { false } })
    }
}
