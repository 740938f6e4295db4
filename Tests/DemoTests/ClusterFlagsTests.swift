import Foundation
import RemoteModalDemo
import RemoteModalFlags
import Testing

/// `--cluster` needs a key (or an explicit `--cluster-insecure`), reads its secrets from
/// files, and never repeats a password it was given.
@Suite("Cluster flags: a key, secrets from files")
struct ClusterFlagsTests {
    private func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func parse(_ arguments: [String]) throws -> HostOptions? {
        try HostOptions.parse(arguments, environment: [:])
    }

    @Test func aClusterWithoutAKeyRefusesToStartUnlessToldInsecure() throws {
        #expect {
            _ = try parse(["--cluster", "redis://127.0.0.1:6379/0"])
        } throws: { "\($0)".contains("--cluster-key-file") && "\($0)".contains("--cluster-insecure") }
        let insecure = try parse(["--cluster", "redis://127.0.0.1:6379/0", "--cluster-insecure"])
        #expect(insecure?.host.cluster != nil)
    }

    @Test func theKeyComesFromAFileOfAtLeast32Bytes() throws {
        let short = try file("0123456789\n")
        let good = try file(String(repeating: "ab", count: 32) + "\n")
        defer {
            try? FileManager.default.removeItem(atPath: short)
            try? FileManager.default.removeItem(atPath: good)
        }
        #expect {
            _ = try parse(["--cluster", "redis://h:1/0", "--cluster-key-file", short])
        } throws: { "\($0)".contains("at least 32 bytes") && !"\($0)".contains("0123456789") }
        #expect {
            _ = try parse(["--cluster", "redis://h:1/0", "--cluster-key-file", "/nonexistent/cluster.key"])
        } throws: { "\($0)".contains("cannot read") }
        let options = try parse(["--cluster", "redis://h:1/0", "--cluster-key-file", good])
        #expect(options?.host.cluster?.key != nil)
    }

    @Test func passwordsAreReadFromAFileAndNeverRepeated() throws {
        let key = try file(String(repeating: "cd", count: 32))
        let empty = try file("\n")
        defer {
            try? FileManager.default.removeItem(atPath: key)
            try? FileManager.default.removeItem(atPath: empty)
        }
        #expect {
            _ = try parse(["--cluster", "redis://:hunter2@h:99999/0", "--cluster-key-file", key])
        } throws: { !"\($0)".contains("hunter2") }
        #expect {
            _ = try parse([
                "--cluster", "redis://h:1/0", "--cluster-key-file", key, "--cluster-password-file", empty,
            ])
        } throws: { "\($0)".contains("cluster-password-file") }
    }
}
