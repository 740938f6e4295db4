/// Writes compact JSON. Hand-written so the hot host messages encode without Foundation.
public struct JSONWriter {
    /// The text written so far.
    public private(set) var output = ""

    /// Creates an empty writer.
    public init() {
        output.reserveCapacity(256)
    }

    /// Appends a raw piece of JSON syntax (punctuation, keys already quoted).
    /// - Parameter raw: The text.
    public mutating func raw(_ raw: String) { output += raw }

    /// Appends a string literal with the required escapes.
    /// - Parameter string: The string.
    public mutating func string(_ string: String) {
        output.append("\"")
        var plainStart = string.utf8.startIndex
        var index = plainStart
        let utf8 = string.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 {
                output += String(string[plainStart..<index])
                switch byte {
                case 0x22: output += "\\\""
                case 0x5C: output += "\\\\"
                case 0x0A: output += "\\n"
                case 0x0D: output += "\\r"
                case 0x09: output += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        output += String(string[plainStart..<utf8.endIndex])
        output.append("\"")
    }

    /// Appends a number: integers without a fraction, others in the shortest form.
    /// - Parameter number: The number.
    public mutating func number(_ number: Double) {
        if number.rounded() == number, abs(number) < 1e15 {
            output += String(Int64(number))
        } else {
            output += "\(number)"
        }
    }

    /// Appends an integer.
    /// - Parameter number: The number.
    public mutating func int(_ number: Int) { output += String(number) }

    /// Appends `true` or `false`.
    /// - Parameter value: The value.
    public mutating func bool(_ value: Bool) { output += value ? "true" : "false" }

    /// Appends a string or `null`.
    /// - Parameter value: The string, or `nil`.
    public mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { output += "null" }
    }

    /// Appends an array of strings.
    /// - Parameter values: The strings.
    public mutating func strings(_ values: [String]) {
        output.append("[")
        for (offset, value) in values.enumerated() {
            if offset > 0 { output.append(",") }
            string(value)
        }
        output.append("]")
    }

    /// Appends any JSON value.
    /// - Parameter value: The value.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            output.append("[")
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(",") }
                self.value(element)
            }
            output.append("]")
        case .object(let pairs):
            output.append("{")
            for (offset, pair) in pairs.enumerated() {
                if offset > 0 { output.append(",") }
                string(pair.0)
                output.append(":")
                self.value(pair.1)
            }
            output.append("}")
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
