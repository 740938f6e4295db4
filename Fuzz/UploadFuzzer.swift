// libFuzzer target: the upload reassembly. Any sequence of chunks and results must end in
// files whose bytes match their declared size and SHA-256, or in `upload_invalid`; never a
// trap, never more than `maxBytes`. Built by scripts/fuzz with the ModalProtocol sources.
import Foundation

/// A small memory budget, so files also take the spool path; a spool folder of the fuzzer's own.
private let budget: UploadBudget = {
    let spool = SpoolDirectory(path: nil)
    try? spool.prepare()
    return UploadBudget(maxMemory: 2_048, maxReserved: 1 << 20, spool: spool)
}()

/// The libFuzzer entry point: replays the input as chunk and result operations.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUploads(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let assembly = UploadAssembly(maxBytes: 4_096, maxFiles: 3, budget: budget, spoolThreshold: 512)
    var cursor = 0
    func next() -> Int {
        defer { cursor += 1 }
        return cursor < bytes.count ? Int(bytes[cursor]) : 0
    }
    var sent: [Int: [UInt8]] = [:]
    while cursor < bytes.count {
        let tag = next()
        if tag % 5 == 4 {
            // A result naming what was sent, sometimes with a lie in it.
            let lie = next() % 4
            let items = sent.keys.sorted().map { file -> PickedItem in
                let content = sent[file]!
                var item = PickedItem(name: "f\(file)", mimeType: "x", size: content.count, sha256: SHA256.hex(content))
                if lie == 1 { item.size += 1 }
                if lie == 2 { item.sha256 = String(repeating: "0", count: 64) }
                if lie == 3 { item.name += "-renamed" }
                return item
            }
            if let files = try? assembly.finish(items) {
                guard lie == 0 || items.isEmpty else { fatalError("a lie was accepted") }
                var total = 0
                for file in files {
                    let content = (try? file.contents()) ?? Data()
                    guard content.count == file.size, SHA256.hex(content) == file.sha256 else {
                        fatalError("delivered bytes differ from the checked size or hash")
                    }
                    total += file.size
                }
                guard total <= 4_096 else { fatalError("more than maxBytes delivered") }
                sent = [:]
            } else {
                assembly.reset()
                sent = [:]
            }
            continue
        }
        let file = next() % 4
        let length = next() * 3
        let declared = next() * 20
        let start = sent[file]?.count ?? 0
        let offset = next() % 3 == 0 ? next() * 7 : start
        let chunk = (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ cursor) }
        let message = UploadChunk(
            id: "m1", file: file, name: "f\(file)", mimeType: "x", size: declared, offset: offset,
            data: Data(chunk).base64EncodedString(), last: next() % 2 == 0)
        do {
            try assembly.add(message)
            if offset == 0 { sent[file] = [] }
            sent[file, default: []] += chunk
        } catch {
            assembly.reset()
            sent = [:]
        }
    }
    assembly.reset()
    return 0
}
