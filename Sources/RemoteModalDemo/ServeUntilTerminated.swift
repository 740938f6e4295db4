import Dispatch
import Foundation
import RemoteModalHost
import RemoteModalReactive

/// Starts a test or bench host and serves until SIGTERM, then disposes its flows, shuts
/// the host down and exits 0. A start failure is printed and exits 2.
/// - Parameters:
///   - host: The host, not started yet.
///   - flows: What to dispose before the shutdown.
///   - name: The program's name, for the error line.
public func serveUntilTerminated(_ host: ModalHost, flows: any Disposable, name: String) -> Never {
    do {
        try host.start()
    } catch {
        FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
        exit(2)
    }
    signal(SIGTERM, SIG_IGN)
    let stop = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
    stop.setEventHandler {
        flows.dispose()
        host.shutdown()
        exit(0)
    }
    stop.resume()
    dispatchMain()
}
