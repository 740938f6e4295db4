// libFuzzer target: the protocol decoder must turn any bytes into a message or a
// ProtocolError, never trap. Built by scripts/fuzz with the ModalProtocol sources.

/// The libFuzzer entry point: decodes one input; traps only on a real defect.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    // The parser reads a String's bytes without validating its strings again, and raw
    // bytes with validation: both must agree on valid UTF-8, and raw bytes that are not
    // valid UTF-8 must never parse.
    let fromBytes = try? JSONParser().parse(bytes: bytes)
    if let valid = String(validating: bytes, as: UTF8.self) {
        guard (try? JSONParser().parse(valid)) == fromBytes else { fatalError("String and bytes parse differently") }
    } else if fromBytes != nil {
        fatalError("invalid UTF-8 parsed as JSON")
    }
    if let message = try? ClientMessage.decode(text) {
        // A decoded message must survive its own encoding.
        guard (try? ClientMessage.decode(message.encode())) == message else { fatalError("round trip changed \(text)") }
        if case .result(_, let value) = message {
            for modal in fuzzModals { _ = try? modal.validateResult(value) }
        }
    }
    _ = try? HostMessage.decode(text)
    // The same bytes as a binary frame (protocol.md §7, "Binary chunks"): an upload chunk
    // whose own binary frame decodes back to it, or a ProtocolError.
    if case .upload(let chunk) = try? ClientMessage.decodeBinary(Array(bytes)) {
        guard chunk.data.isEmpty, (try? ClientMessage.decodeBinary(chunk.binaryFrame())) == .upload(chunk) else {
            fatalError("binary round trip changed \(Array(bytes.prefix(64)))")
        }
    }
    return 0
}

private let fuzzModals: [ModalDescription] = [
    .alert(
        title: "t", message: nil, textFields: [TextFieldSpec(kind: .email), TextFieldSpec(kind: .password)],
        actions: [ActionSpec(title: "a"), ActionSpec(title: "b", enabled: false)]),
    .actionSheet(title: nil, message: nil, source: nil, actions: [ActionSpec(title: "a")]),
    .webAuthentication(url: "https://x", callbackURL: nil, callbackURLScheme: "app"),
    .mailComposer(to: [], cc: [], bcc: [], subject: "", body: "", isHTML: false),
    .messageComposer(recipients: [], subject: nil, body: ""),
    .photoPicker(selectionLimit: 3, filter: ["image"], maxBytes: 1_000),
    .mediaPicker(types: ["audio"], allowsMultiple: false, maxBytes: 1_000),
]
