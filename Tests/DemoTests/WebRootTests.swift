import Foundation
import RemoteModalDemo
import RemoteModalFlags
import Testing

/// A folder of its own under the temporary directory, removed by the caller.
private func scratch() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webroot-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

private func page(in folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("<!doctype html>".utf8).write(to: folder.appendingPathComponent("index.html"))
}

@Suite("The page is found wherever the host starts, or the host refuses to start")
struct WebRootTests {
    @Test func theCurrentFoldersWebComesFirst() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        try page(in: root.appendingPathComponent("here/web"))
        try page(in: root.appendingPathComponent("checkout/web"))
        let search = WebRootSearch(
            currentDirectory: root.appendingPathComponent("here").path,
            executable: root.appendingPathComponent("checkout/.build/x86_64-unknown-linux-gnu/debug/modal-host").path)
        #expect(search.find() == root.appendingPathComponent("here/web").standardizedFileURL.path)
    }

    @Test func fromAnotherFolderTheCheckoutsWebIsFound() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("elsewhere"), withIntermediateDirectories: true)
        try page(in: root.appendingPathComponent("checkout/web"))
        let search = WebRootSearch(
            currentDirectory: root.appendingPathComponent("elsewhere").path,
            executable: root.appendingPathComponent("checkout/.build/x86_64-unknown-linux-gnu/release/modal-host").path)
        #expect(search.find() == root.appendingPathComponent("checkout/web").standardizedFileURL.path)
        var options = HostOptions()
        try options.resolveWebRoot(search)
        #expect(options.server.webRoot == root.appendingPathComponent("checkout/web").standardizedFileURL.path)
    }

    @Test func withNoPageAnywhereTheHostRefusesToStartSayingWhereItLooked() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let search = WebRootSearch(
            currentDirectory: root.path, executable: root.appendingPathComponent("bin/modal-host").path)
        var options = HostOptions()
        #expect(throws: FlagError.self) { try options.resolveWebRoot(search) }
        do {
            try options.resolveWebRoot(search)
        } catch {
            let text = "\(error)"
            #expect(text.contains(root.appendingPathComponent("web").standardizedFileURL.path))
            #expect(text.contains("--web-root none"))
        }
    }

    @Test func aGivenFolderWithoutAPageIsRefusedAndNoneServesNoPage() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        var given = try #require(try HostOptions.parse(["--web-root", root.path], environment: [:]))
        #expect(throws: FlagError.self) { try given.resolveWebRoot() }
        try page(in: root)
        try given.resolveWebRoot()
        #expect(given.server.webRoot == root.path)

        var none = try #require(try HostOptions.parse(["--web-root", "none"], environment: [:]))
        try none.resolveWebRoot(WebRootSearch(currentDirectory: "/nonexistent", executable: nil))
        #expect(none.server.webRoot == nil)
    }
}
