import Foundation

/// Reads a golden fixture from `Tests/Fixtures/protocol/NAME.json`, without the newline.
func fixture(_ name: String, file: String = #filePath) -> String {
    let url = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/protocol/\(name).json")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? "missing fixture \(name)"
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
}
