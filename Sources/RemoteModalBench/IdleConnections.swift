import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalWebSocket
import Synchronization

/// Opens many idle connections and keeps them until released, to measure the server's
/// memory per connection.
public final class IdleConnections: Sendable {
    private let client: WebSocketClient
    private let counter = OpenCounter()

    /// Opens `count` connections and waits until they are open.
    /// - Parameters:
    ///   - url: The server URL.
    ///   - count: How many.
    ///   - subprotocol: The subprotocol to offer.
    ///   - hello: A first message to send on each connection (the protocol's `hello`).
    /// - Throws: When fewer than `count` open within 60 seconds.
    public init(url: String, count: Int, subprotocol: String? = nil, hello: String? = nil) throws {
        let opened = counter
        let box = Locked<WebSocketClient?>(nil)
        client = try WebSocketClient(
            logger: Logger(label: "idle", settings: LoggerSettings(level: .error)),
            onOpen: { id in
                opened.increment()
                if let hello { box.withLock { $0 }?.send(text: hello, to: id) }
            },
            onMessage: { _, _ in })
        box.withLock { $0 = client }
        for _ in 0..<count { _ = try client.connect(url, subprotocol: subprotocol) }
        let deadline = Date().addingTimeInterval(60)
        while opened.value < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard opened.value >= count else {
            throw WebSocketError.invalidState("only \(opened.value) of \(count) opened")
        }
    }

    /// How many are open.
    public var count: Int { counter.value }

    /// Closes them all.
    public func release() { client.stop(deadline: 5) }
}

/// The resident set size of a process, in KiB, from `/proc/PID/status`.
/// - Parameter pid: The process id.
/// - Returns: `VmRSS`, or `nil` when unreadable.
public func residentKiB(pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
    return nil
}

/// A thread-safe counter.
final class OpenCounter: Sendable {
    private let storage = Atomic<Int>(0)
    func increment() { storage.add(1, ordering: .relaxed) }
    var value: Int { storage.load(ordering: .relaxed) }
}
