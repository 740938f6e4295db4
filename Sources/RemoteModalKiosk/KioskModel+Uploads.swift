import RemoteModalClient
import RemoteModalProtocol

/// A picker's files as the person sees them: read, sent, refused.
extension KioskModel {
    mutating func uploadStopped(_ id: String, _ message: String) {
        guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
        let message = Self.namingFiles(message, names: modals[index].upload?.names ?? [])
        modals[index].reading = false
        if modals[index].upload == nil {
            // Refused before any byte went (over the limits, unreadable): said under the paths.
            modals[index].answer = .none
            if !modals[index].fields.isEmpty {
                modals[index].fields[0].error = message
                modals[index].focus = 0
            } else {
                modals[index].uploadError = message
            }
            return
        }
        guard modals[index].uploadError == nil else { return }
        modals[index].uploadError = message
    }

    /// The host's words about a file with the file named as the person chose it: the host
    /// counts files from 0 ("file 0 ('notes.txt')"), which a passer-by cannot know.
    /// - Parameters:
    ///   - message: The host's words.
    ///   - names: The files' names, in the order they went.
    /// - Returns: The words, with "file 0 ('notes.txt')" and "file 0" as the file's name.
    static func namingFiles(_ message: String, names: [String]) -> String {
        let named = message.replacing(#/file \d+ \('([^']*)'\)/#) { match in "\u{201C}\(match.1)\u{201D}" }
        return named.replacing(#/file (\d+)/#) { match in
            guard let index = Int(match.1), names.indices.contains(index) else {
                return names.count == 1 ? "\u{201C}\(names[0])\u{201D}" : "a file"
            }
            return "\u{201C}\(names[index])\u{201D}"
        }
    }

    /// Reports paths that cannot be sent (unreadable, not a regular file, over the limits):
    /// said under the Files field, which gets the focus.
    /// - Parameters:
    ///   - id: The picker.
    ///   - error: Why.
    public mutating func pickFailed(id: String, error: String) {
        guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
        modals[index].reading = false
        modals[index].upload = nil
        modals[index].answer = .none
        guard !modals[index].fields.isEmpty else { return modals[index].uploadError = error }
        modals[index].fields[0].error = error
        modals[index].focus = 0
    }

    /// Notes the files a picker is sending (their names, for the progress line).
    /// - Parameters:
    ///   - id: The picker.
    ///   - names: The file names.
    ///   - total: Their bytes.
    public mutating func uploadStarted(id: String, names: [String], total: Int) {
        guard let index = modals.firstIndex(where: { $0.id == id }) else { return }
        modals[index].upload = UploadProgress(acknowledged: 0, total: total, names: names)
    }
}
