import Foundation

/// Where `modal-host` looks for the page when no `--web-root` is given, in order: `web/` in
/// the current folder; the `web/` of the checkout the executable was built in (it runs from
/// `.build/<triple>/<configuration>/`); an installed copy beside the executable
/// (`../share/remote-modal/web`) or in `/usr/share/remote-modal/web`.
public struct WebRootSearch: Sendable {
    /// The folders tried, in order (absolute paths).
    public let candidates: [String]

    /// A search from a current folder and an executable's path.
    /// - Parameters:
    ///   - currentDirectory: The folder the host was started in.
    ///   - executable: The executable's path, symbolic links resolved (`/proc/self/exe`).
    public init(
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        executable: String? = WebRootSearch.runningExecutable()
    ) {
        var candidates = [URL(fileURLWithPath: currentDirectory).appendingPathComponent("web").standardizedFileURL.path]
        if let executable {
            let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
            candidates.append(folder.appendingPathComponent("../../../web").standardizedFileURL.path)
            candidates.append(folder.appendingPathComponent("../../web").standardizedFileURL.path)
            candidates.append(folder.appendingPathComponent("../share/remote-modal/web").standardizedFileURL.path)
        }
        candidates.append("/usr/share/remote-modal/web")
        var seen = Set<String>()
        self.candidates = candidates.filter { seen.insert($0).inserted }
    }

    /// The first candidate that holds the page, or `nil`.
    /// - Returns: Its path.
    public func find() -> String? { candidates.first(where: Self.holdsPage) }

    /// Whether a folder holds the page (an `index.html`).
    /// - Parameter folder: The folder.
    /// - Returns: `true` when `folder/index.html` is a file.
    public static func holdsPage(_ folder: String) -> Bool {
        var isFolder: ObjCBool = false
        let index = URL(fileURLWithPath: folder).appendingPathComponent("index.html").path
        return FileManager.default.fileExists(atPath: index, isDirectory: &isFolder) && !isFolder.boolValue
    }

    /// This process's executable, links resolved, or `nil` where the system cannot say.
    /// - Returns: Its path.
    public static func runningExecutable() -> String? {
        let resolved = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return resolved == "/proc/self/exe" ? Bundle.main.executablePath : resolved
    }
}
