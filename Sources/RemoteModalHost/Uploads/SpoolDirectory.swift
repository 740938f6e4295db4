import Foundation

/// The folder where uploads past the memory budget are written, one file per picked file.
///
/// Without an explicit path it is `remote-modal-uploads/pid-PID-RANDOM` under the system's
/// temporary directory; at start, the folders of processes that no longer run are removed,
/// so a killed host leaves nothing behind after the next start. With an explicit path,
/// spool files (`upload-*`) left in it are removed at start; nothing else in it is touched.
/// `removeAll()` at shutdown removes this process's spool files (and its own folder).
final class SpoolDirectory: Sendable {
    /// The folder.
    let url: URL
    private let ownsFolder: Bool
    static let filePrefix = "upload-"

    /// Chooses the folder; nothing is created until `prepare()`.
    /// - Parameter path: An explicit folder, or `nil` for this process's own.
    init(path: String?) {
        if let path {
            url = URL(fileURLWithPath: path, isDirectory: true)
            ownsFolder = false
        } else {
            // One folder per host, also when a process runs several.
            let unique = UUID().uuidString.prefix(8)
            url = Self.parent.appendingPathComponent("pid-\(getpid())-\(unique)", isDirectory: true)
            ownsFolder = true
        }
    }

    private static var parent: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("remote-modal-uploads", isDirectory: true)
    }

    /// Why the spool folder cannot be used, for the person who configured it.
    struct Unusable: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates the folder (mode 0700) and removes what earlier runs left.
    /// - Throws: `Unusable` naming the folder when it cannot be created or is not a folder.
    func prepare() throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw Unusable(description: "the spool folder '\(url.path)' is a file, not a folder (see --spool-dir)")
        }
        do {
            try createAndSweep()
        } catch {
            throw Unusable(
                description:
                    "cannot create the spool folder '\(url.path)': \(error.localizedDescription) (see --spool-dir)")
        }
    }

    private func createAndSweep() throws {
        let files = FileManager.default
        if ownsFolder {
            try files.createDirectory(
                at: Self.parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for name in (try? files.contentsOfDirectory(atPath: Self.parent.path)) ?? [] {
                let parts = name.split(separator: "-")
                guard parts.count == 3, parts[0] == "pid", let pid = Int32(parts[1]), pid != getpid() else { continue }
                // kill(pid, 0) fails with ESRCH when no such process runs.
                if kill(pid, 0) != 0 && errno == ESRCH {
                    try? files.removeItem(at: Self.parent.appendingPathComponent(name))
                }
            }
        }
        try files.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        removeSpoolFiles()
    }

    /// A new, unused spool file's URL.
    func newFile() -> URL {
        url.appendingPathComponent(Self.filePrefix + UUID().uuidString)
    }

    /// Removes this host's spool files (at shutdown).
    func removeAll() {
        removeSpoolFiles()
        if ownsFolder { try? FileManager.default.removeItem(at: url) }
    }

    private func removeSpoolFiles() {
        let files = FileManager.default
        for name in (try? files.contentsOfDirectory(atPath: url.path)) ?? [] where name.hasPrefix(Self.filePrefix) {
            try? files.removeItem(at: url.appendingPathComponent(name))
        }
    }
}
