import Foundation
import RemoteModalLocking

/// The folder where uploads past the memory budget are written, one file per picked file.
///
/// Without an explicit path it is created fresh by `mkdtemp` under the system's temporary
/// directory (`remote-modal-uploads.pid-PID.XXXXXX`, mode 0700): never a folder that was
/// there before, so another local user cannot have prepared it or a symlink in its place.
/// At start, such folders of this user's processes that no longer run are removed, so a
/// killed host leaves nothing behind after the next start.
///
/// An explicit path (`--spool-dir`) is created (mode 0700) when missing; otherwise it must
/// be a real folder (not a symlink), owned by this process's user, with no access for group
/// or others (mode 0700), or the host refuses to start. Spool files (`upload-*`) left in it
/// are removed at start; nothing else in it is touched.
///
/// Once checked, the folder is held open and every spool file is created inside that very
/// folder (`openat`, `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600), so renaming or replacing a
/// path component afterwards cannot redirect the bytes. `removeAll()` at shutdown removes
/// this process's spool files (and its own folder).
final class SpoolDirectory: Sendable {
    /// What `prepare()` found: the folder's path and its open descriptor.
    private struct Prepared {
        var url: URL
        var descriptor: Int32
    }

    private let explicitPath: String?
    private let parent: URL
    private let prepared = Locked<Prepared?>(nil)
    static let filePrefix = "upload-"
    private static let ownPrefix = "remote-modal-uploads.pid-"

    /// Chooses the folder; nothing is created until `prepare()`.
    /// - Parameters:
    ///   - path: An explicit folder, or `nil` for this process's own.
    ///   - parent: Where this process's own folder is created (the system's temporary
    ///     directory unless a test names another).
    init(path: String?, parent: URL = FileManager.default.temporaryDirectory) {
        // "link/" would make lstat and O_NOFOLLOW look through a symbolic link: the folder's
        // own name is what is checked, so trailing slashes go.
        var trimmed = path
        while let text = trimmed, text.count > 1, text.hasSuffix("/") { trimmed = String(text.dropLast()) }
        explicitPath = trimmed
        self.parent = parent
    }

    deinit {
        if let descriptor = prepared.withLock({ $0?.descriptor }) { _ = Glibc.close(descriptor) }
    }

    /// The folder (known once `prepare()` succeeded).
    var url: URL {
        prepared.withLock { $0?.url } ?? URL(fileURLWithPath: explicitPath ?? parent.path, isDirectory: true)
    }

    /// Why the spool folder cannot be used, for the person who configured it.
    struct Unusable: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates or checks the folder, opens it, and removes what earlier runs left.
    /// - Throws: `Unusable` naming the folder and what is wrong with it.
    func prepare() throws {
        guard prepared.withLock({ $0 == nil }) else { return }
        let path: String
        if let explicitPath {
            path = explicitPath
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw Unusable(
                    description: "cannot create the spool folder '\(path)': \(Self.errorText()) (see --spool-dir)")
            }
        } else {
            sweepDeadProcessFolders()
            var template = Array(parent.appendingPathComponent(Self.ownPrefix + "\(getpid()).XXXXXX").path.utf8CString)
            guard let made = mkdtemp(&template) else {
                throw Unusable(
                    description:
                        "cannot create a spool folder under '\(parent.path)': \(Self.errorText()) (see --spool-dir)")
            }
            path = String(cString: made)
        }
        let descriptor = try Self.openChecked(path)
        prepared.withLock { $0 = Prepared(url: URL(fileURLWithPath: path, isDirectory: true), descriptor: descriptor) }
        removeSpoolFiles()
    }

    /// Opens a folder that must be ours: not a symlink, a folder, owned by this user, mode
    /// 0700 (no group or other bits). The checks are made on the opened folder itself.
    private static func openChecked(_ path: String) throws -> Int32 {
        func unusable(_ why: String) -> Unusable {
            Unusable(description: "the spool folder '\(path)' \(why); the host does not use it (see --spool-dir)")
        }
        var link = stat()
        guard lstat(path, &link) == 0 else { throw unusable("cannot be read: \(errorText())") }
        if link.st_mode & S_IFMT == S_IFLNK { throw unusable("is a symbolic link") }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw unusable(errno == ENOTDIR ? "is not a folder" : "cannot be opened: \(errorText())")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let text = errorText()
            _ = Glibc.close(descriptor)
            throw unusable("cannot be read: \(text)")
        }
        let refusal: String? =
            if status.st_mode & S_IFMT != S_IFDIR {
                "is not a folder"
            } else if status.st_uid != geteuid() {
                "belongs to user id \(status.st_uid), not to this host's user (\(geteuid()))"
            } else if status.st_mode & 0o077 != 0 {
                "has mode \(String(status.st_mode & 0o777, radix: 8)): it must be 0700 (chmod 700 it)"
            } else {
                nil
            }
        if let refusal {
            _ = Glibc.close(descriptor)
            throw unusable(refusal)
        }
        return descriptor
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    /// Removes the own folders of this user's hosts that no longer run.
    private func sweepDeadProcessFolders() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        where name.hasPrefix(Self.ownPrefix) {
            let rest = name.dropFirst(Self.ownPrefix.count).split(separator: ".")
            guard rest.count == 2, let pid = Int32(rest[0]), pid != getpid() else { continue }
            // kill(pid, 0) fails with ESRCH when no such process runs.
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            let path = parent.appendingPathComponent(name).path
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid() else {
                continue
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Creates a new spool file inside the checked folder.
    /// - Returns: Its URL and a handle open for writing, or `nil` when the folder refuses.
    func createFile() -> (URL, FileHandle)? {
        guard let folder = prepared.withLock({ $0 }) else { return nil }
        let name = Self.filePrefix + UUID().uuidString
        let descriptor = openat(folder.descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        return (folder.url.appendingPathComponent(name), FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    /// Removes one spool file of this folder (by its name, inside the checked folder).
    func remove(_ file: URL) {
        guard let folder = prepared.withLock({ $0 }) else { return }
        _ = unlinkat(folder.descriptor, file.lastPathComponent, 0)
    }

    /// Removes this host's spool files (at shutdown).
    func removeAll() {
        removeSpoolFiles()
        guard explicitPath == nil, let folder = prepared.withLock({ $0 }) else { return }
        _ = rmdir(folder.url.path)
    }

    private func removeSpoolFiles() {
        guard let folder = prepared.withLock({ $0 }) else { return }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []
        where name.hasPrefix(Self.filePrefix) {
            _ = unlinkat(folder.descriptor, name, 0)
        }
    }
}
