import Foundation
import RemoteModalProtocol
import Testing

/// Inputs the fuzzer once broke on, kept so they never break again.
func fuzzRegressions(file: String = #filePath) -> [String] {
    let folder = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz-regressions")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted()
}

@Suite("Fuzzer regressions")
struct FuzzRegressionTests {
    @Test(arguments: fuzzRegressions())
    func decodeNeverTrapsAndRoundTrips(name: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz-regressions/\(name)")
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        guard let message = try? ClientMessage.decode(text) else { return }
        let encoded = message.encode()
        #expect(try ClientMessage.decode(encoded) == message, "re-encoded: \(encoded)")
    }
}
