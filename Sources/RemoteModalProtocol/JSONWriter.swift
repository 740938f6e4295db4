/// Writes compact JSON. Hand-written so the hot host messages encode without Foundation.
public struct JSONWriter {
    // NB: bytes, not a String: appending a string's UTF-8 is a copy, where appending
    // substrings to a String went through the slice path and a new String per escape run
    // (the writer was a tenth of the host's time in the demo cycle's profile).
    /// The bytes written so far (UTF-8).
    public private(set) var bytes: [UInt8] = []

    /// The text written so far.
    public var output: String { String(decoding: bytes, as: UTF8.self) }

    /// Creates an empty writer.
    public init() {
        bytes.reserveCapacity(512)
    }

    /// Appends a raw piece of JSON syntax (punctuation, keys already quoted).
    /// - Parameter raw: The text.
    public mutating func raw(_ raw: String) { append(raw) }

    /// Appends bytes of JSON written earlier (by another writer), as they are.
    /// - Parameter json: UTF-8 JSON text.
    public mutating func rawBytes(_ json: [UInt8]) { bytes.append(contentsOf: json) }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Appends a string literal with the required escapes.
    /// - Parameter string: The string.
    public mutating func string(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            bytes.reserveCapacity(bytes.count + utf8.count + 2)
            bytes.append(0x22)
            var plainStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte == 0x22 || byte == 0x5C || byte < 0x20 else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                bytes.append(0x5C)
                switch byte {
                case 0x22: bytes.append(0x22)
                case 0x5C: bytes.append(0x5C)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hexDigit(byte >> 4), hexDigit(byte & 0xF)])
                }
                plainStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<utf8.count]))
            bytes.append(0x22)
        }
    }

    private func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x61 + value - 10
    }

    /// Appends a number: integers without a fraction, others in the shortest form.
    /// - Parameter number: The number.
    public mutating func number(_ number: Double) {
        if number.rounded() == number, abs(number) < 1e15 {
            append(String(Int64(number)))
        } else {
            append("\(number)")
        }
    }

    /// Appends an integer.
    /// - Parameter number: The number.
    public mutating func int(_ number: Int) { append(String(number)) }

    /// Appends `true` or `false`.
    /// - Parameter value: The value.
    public mutating func bool(_ value: Bool) { append(value ? "true" : "false") }

    /// Appends a string or `null`.
    /// - Parameter value: The string, or `nil`.
    public mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { append("null") }
    }

    /// Appends an array of strings.
    /// - Parameter values: The strings.
    public mutating func strings(_ values: [String]) {
        byte(0x5B)
        for (offset, value) in values.enumerated() {
            if offset > 0 { byte(0x2C) }
            string(value)
        }
        byte(0x5D)
    }

    /// Appends any JSON value.
    /// - Parameter value: The value.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            byte(0x5B)
            for (offset, element) in elements.enumerated() {
                if offset > 0 { byte(0x2C) }
                self.value(element)
            }
            byte(0x5D)
        case .object(let pairs):
            byte(0x7B)
            for (offset, pair) in pairs.enumerated() {
                if offset > 0 { byte(0x2C) }
                string(pair.0)
                byte(0x3A)
                self.value(pair.1)
            }
            byte(0x7D)
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    public var jsonText: String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.output
    }
}
