import Foundation

/// A file a person picked on the client, fully received and checked (size and SHA-256).
///
/// Small files stay in memory (`data`); larger ones are spooled to a temporary file
/// (`fileURL`), removed when the `PickedFile` is released.
public final class PickedFile: Sendable {
    /// The file name the client gave.
    public let name: String
    /// The MIME type the host judged the bytes to be (`image/png` for PNG bytes, whatever the
    /// client declared; `application/octet-stream` for an empty file), never the client's word
    /// alone.
    public let mimeType: String
    /// The MIME type the client declared (`image/svg+xml` over PNG bytes is kept here only).
    public let declaredMimeType: String
    /// The size in bytes.
    public let size: Int
    /// The SHA-256, lower-case hex.
    public let sha256: String
    /// The bytes, for files kept in memory.
    public let data: Data?
    /// The temporary file, for spooled files.
    public let fileURL: URL?

    init(
        name: String, mimeType: String, declaredMimeType: String, size: Int, sha256: String, data: Data?,
        fileURL: URL?
    ) {
        self.name = name
        self.mimeType = mimeType
        self.declaredMimeType = declaredMimeType
        self.size = size
        self.sha256 = sha256
        self.data = data
        self.fileURL = fileURL
    }

    /// Reads the whole content (from memory or the spooled file).
    /// - Returns: The bytes.
    /// - Throws: When the spooled file cannot be read.
    public func contents() throws -> Data {
        if let data { return data }
        guard let fileURL else { return Data() }
        return try Data(contentsOf: fileURL)
    }

    deinit {
        if let fileURL { try? FileManager.default.removeItem(at: fileURL) }
    }
}
