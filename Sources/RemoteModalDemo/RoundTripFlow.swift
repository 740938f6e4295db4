import Foundation
import RemoteModalHost
import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalWebSocket

/// The host side of `modal-bench roundtrip`: every session whose client says it is of
/// kind `bench` gets an endless loop of one-button alerts. Each alert is subscribed, the
/// client answers as soon as `present` arrives, and the time from subscribe to the
/// Single's value is recorded here (the host-side round trip).
public final class RoundTripFlow: Sendable {
    private struct Samples {
        var microseconds: [Double] = []
        var total = 0
    }

    private let samples = Locked(Samples())
    /// Most samples kept between two reports (a long run keeps the newest ones' count only).
    private let sampleLimit = 5_000_000

    /// Creates a flow with no samples yet.
    public init() {}

    /// Starts the loop on every new `bench` session of `host`; serves `/bench/report`
    /// (`?reset=1` also starts a new measurement window).
    /// - Parameter host: The host.
    /// - Returns: A disposable that stops it.
    public func install(on host: ModalHost) -> any Disposable {
        host.addRoute(prefix: "/bench/report") { [self] request in
            HTTPResponse(
                status: 200, contentType: "application/json",
                body: Data(report(reset: request.queryItems["reset"] == "1").utf8))
        }
        return host.sessions.subscribe(onNext: { [self] session in
            guard session.client.kind == "bench" else { return }
            let loop = SerialDisposable()
            loop.disposed(by: session.disposeBag)
            next(session, loop)
        })
    }

    private func next(_ session: Session, _ loop: SerialDisposable) {
        guard !loop.isDisposed else { return }
        let start = ContinuousClock.now
        loop.disposable = RemoteModal.alert(
            Int.self, presenter: session.presenter, title: "Bench", actions: [.default(title: "OK", mapTo: 1)]
        )
        .take(1)
        .subscribe(
            onNext: { [self] _ in
                record(ContinuousClock.now - start)
                next(session, loop)
            })
    }

    private func record(_ elapsed: Duration) {
        let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) * 1e-12
        samples.withLock { state in
            state.total += 1
            if state.microseconds.count < sampleLimit { state.microseconds.append(micros) }
        }
    }

    /// `{"count": N, "total": T, "p50": µs, "p99": µs, "p999": µs}`; `reset` starts a new window.
    private func report(reset: Bool) -> String {
        let (values, total) = samples.withLock { state -> ([Double], Int) in
            let snapshot = (state.microseconds, state.total)
            if reset { state.microseconds.removeAll(keepingCapacity: true) }
            return snapshot
        }
        let sorted = values.sorted()
        func rank(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[max(0, min(sorted.count - 1, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
        }
        var writer = JSONWriter()
        writer.raw("{\"count\":")
        writer.int(sorted.count)
        writer.raw(",\"total\":")
        writer.int(total)
        for (name, fraction) in [("p50", 0.5), ("p99", 0.99), ("p999", 0.999)] {
            writer.raw(",\"\(name)\":")
            writer.raw(String(format: "%.1f", rank(fraction)))
        }
        writer.raw("}")
        return writer.output
    }
}
