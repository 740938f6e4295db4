import Foundation
import RemoteModalClient
import RemoteModalClientWebSocket
import RemoteModalProtocol
import RemoteModalRobot
import RemoteModalWebSocket
import Testing

@testable import RemoteModalConformance

/// The test robot (`RemoteModalRobot`) passes every conformance scenario over a real socket:
/// the conformance host on libwebsockets in this process, the robot on a `WebSocketLink`,
/// answering each modal by meaning as its text says, in the catalogue's order.
@Suite("The robot against the conformance host, over a real socket")
struct RobotConformanceTests {
    static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31) &+ seed) }
    }

    /// What the scenarios' texts say, done with the robot's calls.
    static func follow(_ robot: ModalRobot) async throws {
        try await robot.alert(titled: "Sign in").fill(.email, "ann@example.com").fill(.password, "pw").choose("Sign In")
        try await robot.sheet(titled: "Choose a country").choose("Japan")
        try await robot.composer().choose("Send")
        try await robot.composer().choose("Send")
        try await robot.picker().pick([
            MemoryFile(name: "one.png", mimeType: "image/png", bytes: bytes(40_000, seed: 1)),
            MemoryFile(name: "two.png", mimeType: "image/png", bytes: bytes(40_000, seed: 2)),
        ])
        try await robot.picker().pick([
            MemoryFile(name: "song.mp3", mimeType: "audio/mpeg", bytes: bytes(150_000, seed: 3))
        ])
        let scheme = try await robot.webAuthentication().signIn()
        guard case .callback(let reached) = scheme else {
            Issue.record("the native sign-in ended on a page: \(scheme)")
            return
        }
        #expect(reached.hasPrefix("conformance://callback?code=scheme-code"))
        let served = try await robot.webAuthentication().signIn()
        guard case .page(_, let status) = served else {
            Issue.record("the host-served sign-in ended on a callback: \(served)")
            return
        }
        #expect(status == 200)
        try await robot.custom("conformance").answer(.object([("echo", "K7"), ("n", 2)]))
        let future = try await robot.alert(titled: "From the future")
        let colour = try #require(await future.form?.fields.first?.key)
        try await future.fill(colour, "blue").choose("Continue")
        try await robot.alert(titled: "After the dismiss").choose("OK")
        try await robot.alert(titled: "Sign in again").fill(.email, "bob@example.com").fill(.password, "pw2").choose(
            "Sign In")
        try await robot.alert(titled: "Pick one").choose("Second")
        try await robot.picker().pick([
            MemoryFile(name: "large.png", mimeType: "image/png", bytes: bytes(300_000, seed: 4))
        ])
        try await robot.alert(titled: "After the restart").choose("OK")
        try await robot.alert(titled: "Finish").choose("Finish")
    }

    @Test("the robot passes all 15 scenarios, none skipped")
    func robotPassesEveryScenario() async throws {
        var server = WebSocketServerConfiguration()
        server.host = "127.0.0.1"
        server.port = 0
        server.libraryLogLevel = .error
        let transport = WebSocketTransport(configuration: server)
        var options = ConformanceOptions()
        options.timeout = 20
        options.connectTimeout = 30
        let runner = ConformanceRunner(transport: transport, options: options)
        try runner.start()
        defer { runner.stop() }
        runner.setPublicBase("http://127.0.0.1:\(transport.port)")
        let box = RunnerBox(runner)
        let verdicts = Task {
            await withCheckedContinuation { (done: CheckedContinuation<(ConformanceReport, [String]), Never>) in
                Thread.detachNewThread {
                    var lines: [String] = []
                    let report = box.value.run(ConformanceScenario.all) { lines.append($0) }
                    done.resume(returning: (report, lines))
                }
            }
        }
        let link = try WebSocketLink(url: "ws://127.0.0.1:\(transport.port)/ws")
        defer { link.stop() }
        let configuration = ClientConfiguration(
            client: ClientDescription(kind: "robot", name: "robot-conformance"),
            capabilities: ClientConfiguration.allKinds + ["custom:conformance"])
        let client = RemoteModalClient(configuration: configuration, link: link)
        let robot = ModalRobot(client: client, timeout: .seconds(30))
        client.start()
        defer { client.stop() }
        do {
            try await Self.follow(robot)
        } catch {
            Issue.record("the robot stopped: \(error)")
        }
        let (report, lines) = await verdicts.value
        // The host offers binary chunks until its restart: the robot's uploads (2 x 40,000,
        // 150,000 and 300,000 bytes: 19 chunks, more when the drop mid-upload made it send
        // some again) went as binary frames and passed as such.
        let binary = lines.last { $0.hasPrefix("upload chunks received as binary frames") }
        let count = binary.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        #expect(count >= 19, "\(lines.suffix(3))")
        #expect(report.outcomes.count == 15)
        #expect(report.outcomes.allSatisfy { $0.verdict == .pass }, "\(report.text)")
        #expect(report.text.hasSuffix("conformance: all 15 scenarios passed"), "\(report.text)")
    }
}
