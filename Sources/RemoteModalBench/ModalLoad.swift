import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalWebSocket

/// Microseconds on the monotonic clock since the first call (one origin per process).
func nowMicros() -> Double {
    let elapsed = ContinuousClock.now - benchOrigin
    return Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) * 1e-12
}

private let benchOrigin = ContinuousClock.now

/// The string value of the first `"name":"…"` in a compact JSON text, or `nil`. The bench
/// reads only `type`, `id` and `session` of host messages, which the host writes first and
/// unescaped; a full decode per message would load the shared 2 cores for nothing.
/// - Parameters:
///   - name: The field name.
///   - text: The message.
/// - Returns: The value.
func scanField(_ name: StaticString, in text: String) -> Substring? {
    var text = text
    return text.withUTF8 { bytes -> Substring? in
        let key = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        let count = bytes.count, keyCount = key.count
        var index = 0
        while index + keyCount + 4 <= count {
            if bytes[index] == UInt8(ascii: "\"") && bytes[index + keyCount + 1] == UInt8(ascii: "\"")
                && bytes[index + keyCount + 2] == UInt8(ascii: ":")
                && bytes[index + keyCount + 3] == UInt8(ascii: "\"")
                && memcmp(bytes.baseAddress! + index + 1, key.baseAddress!, keyCount) == 0
            {
                let start = index + keyCount + 4
                var end = start
                while end < count && bytes[end] != UInt8(ascii: "\"") { end += 1 }
                return Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            }
            index += 1
        }
        return nil
    }
}

/// The `hello` a bench client sends. Kind `bench` makes `bench-host` start its alert loop;
/// any other kind leaves the session idle.
/// - Parameters:
///   - kind: The client kind.
///   - name: The client name.
///   - capabilities: What the client can show.
///   - resume: A session to resume.
/// - Returns: The message text.
func helloText(kind: String, name: String, capabilities: [String], resume: String? = nil) -> String {
    let list = capabilities.map { "\"\($0)\"" }.joined(separator: ",")
    let resumePart = resume.map { ",\"resume\":{\"session\":\"\($0)\"}" } ?? ""
    return "{\"type\":\"hello\",\"protocol\":1,\"client\":{\"kind\":\"\(kind)\",\"name\":\"\(name)\"},"
        + "\"capabilities\":[\(list)]\(resumePart)}"
}

/// Waits, polling, until `condition` holds or `seconds` pass.
/// - Returns: Whether the condition held.
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = nowMicros() + seconds * 1e6
    while !condition() {
        if nowMicros() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}

/// A bench client: handlers get the client itself, to answer on the service thread.
/// (Handlers are fixed at creation: storing closures in a lock and swapping them in later
/// sent the release build into endless reabstraction thunks.)
final class BenchClient: Sendable {
    private let box = Locked<WebSocketClient?>(nil)
    private let failures = Locked<[String]>([])
    let client: WebSocketClient

    init(
        eventLoop: EventLoopBackend = .poll,
        onOpen: @escaping @Sendable (WebSocketClient, ConnectionID) -> Void,
        onText: @escaping @Sendable (WebSocketClient, ConnectionID, String) -> Void
    ) throws {
        let (box, failures) = (box, failures)
        client = try WebSocketClient(
            eventLoop: eventLoop,
            logger: Logger(label: "bench", settings: LoggerSettings(level: .error)),
            onOpen: { id in
                if let client = box.withLock({ $0 }) { onOpen(client, id) }
            },
            onMessage: { id, message in
                guard case .text(let text) = message, let client = box.withLock({ $0 }) else { return }
                onText(client, id, text)
            },
            onFailure: { _, message in failures.withLock { $0.append(message) } })
        box.withLock { $0 = client }
    }

    var failureCount: Int { failures.withLock { $0.count } }
    var firstFailure: String? { failures.withLock { $0.first } }
}
