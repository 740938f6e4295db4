import CRemoteModalQREncode

#if canImport(Glibc)
    import Glibc
#endif

/// A QR code as a square matrix of modules, made by libqrencode. The only Swift code
/// that touches the C library.
public struct QRCode: Sendable, Equatable {
    /// How much of the code may be damaged and still read.
    public enum Correction: Sendable {
        /// About 7%.
        case low
        /// About 15%.
        case medium
        /// About 25%.
        case quartile
        /// About 30%.
        case high
    }

    /// Why a code could not be made.
    public enum Failure: Error, Equatable, Sendable {
        /// The text is empty or contains a NUL byte.
        case unencodable
        /// libqrencode refused (too long for any version, or out of memory); `errno` as it said.
        case library(errno: Int32)
        /// libqrencode returned a code whose size does not match its version.
        case malformed
    }

    /// The side in modules (21 for version 1, 4 more per version).
    public let size: Int
    /// The QR version, 1...40.
    public let version: Int
    /// Row-major modules, `true` for dark.
    public let modules: [Bool]

    /// Encodes text (8-bit mode, case kept), choosing the smallest version that fits.
    /// - Parameters:
    ///   - text: What the code says, for example a URL.
    ///   - correction: The error-correction level.
    /// - Throws: `Failure` when libqrencode cannot make it.
    public init(_ text: String, correction: Correction = .medium) throws {
        guard !text.isEmpty, !text.utf8.contains(0) else { throw Failure.unencodable }
        let level: QRecLevel =
            switch correction {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        errno = 0
        guard let code = QRcode_encodeString8bit(text, 0, level) else {
            throw Failure.library(errno: errno)
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let version = Int(code.pointee.version)
        guard (1...40).contains(version), width == 17 + 4 * version, let data = code.pointee.data else {
            throw Failure.malformed
        }
        // Bit 0 of each byte is the module's colour (1 = dark); the other bits describe its role.
        modules = (0..<width * width).map { data[$0] & 1 == 1 }
        size = width
        self.version = version
    }

    /// Whether the module at `row`, `column` is dark (`false` outside the code: the quiet zone).
    /// - Parameters:
    ///   - row: The row.
    ///   - column: The column.
    public subscript(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }

    /// The code as rows of `true`/`false`, without a quiet zone.
    public var rows: [[Bool]] {
        (0..<size).map { row in Array(modules[row * size..<(row + 1) * size]) }
    }
}
