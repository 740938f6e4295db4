import RemoteModalHost
import RemoteModalReactive
import RemoteModalTestSupport

/// The setup the upload suites share: clients from given addresses, each shown a photo picker.
extension HostHarness {
    /// A client from `peer` that said hello as `name` with the photo picker capability.
    /// - Parameters:
    ///   - name: The client's name.
    ///   - peer: Its address.
    /// - Returns: The client, its hello settled.
    func pickerClient(_ name: String, from peer: String) -> TestClient {
        let client = transport.connect(peer: peer)
        client.hello(name: name, capabilities: ["photoPicker"])
        settle()
        return client
    }

    /// Presents a photo picker (`m1` for a fresh client) to a client's session.
    /// - Parameters:
    ///   - client: The client.
    ///   - maxBytes: The picker's `maxBytes`, or `nil` for its default.
    /// - Returns: Where the picked files arrive.
    @discardableResult
    func presentPhotoPicker(to client: TestClient, maxBytes: Int? = nil) -> Outcome<[PickedFile]> {
        let outcome = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(session(of: client))) { configuration in
            if let maxBytes { configuration.maxBytes = maxBytes }
        }
        .asObservable().subscribe(outcome.observer())
        settle()
        return outcome
    }
}
