/// Typed access to an object's fields that reports the field's name on failure.
struct Fields {
    let object: JSONValue
    let type: String?
    let path: String

    init(_ object: JSONValue, type: String?, path: String = "") {
        self.object = object
        self.type = type
        self.path = path
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The maximum length of any string field, in characters.
    static let maxStringLength = 65_536

    func string(_ key: String) throws(ProtocolError) -> String {
        guard let value = object[key] else { throw .missing(name(key), in: type) }
        return try checkedString(value, key)
    }

    /// A string field allowed to be longer than `maxStringLength` (an attachment's data).
    func string(_ key: String, maxLength: Int) throws(ProtocolError) -> String {
        guard let value = object[key] else { throw .missing(name(key), in: type) }
        guard let text = value.stringValue else { throw .wrongType(name(key), expected: "a string", in: type) }
        guard text.utf8.count <= maxLength else {
            throw ProtocolError(.badMessage, "field '\(name(key))' is too long", ref: type)
        }
        return text
    }

    func optionalString(_ key: String) throws(ProtocolError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        return try checkedString(value, key)
    }

    /// An optional string field held to a shorter limit than `maxStringLength`.
    func optionalString(_ key: String, maxLength: Int) throws(ProtocolError) -> String? {
        guard let text = try optionalString(key) else { return nil }
        guard text.utf8.count <= maxLength else {
            throw ProtocolError(.badMessage, "field '\(name(key))' is too long (at most \(maxLength) bytes)", ref: type)
        }
        return text
    }

    private func checkedString(_ value: JSONValue, _ key: String) throws(ProtocolError) -> String {
        guard let text = value.stringValue else { throw .wrongType(name(key), expected: "a string", in: type) }
        guard text.utf8.count <= Self.maxStringLength else {
            throw ProtocolError(.badMessage, "field '\(name(key))' is too long", ref: type)
        }
        return text
    }

    func int(_ key: String, in range: ClosedRange<Int> = 0...Int(Int32.max)) throws(ProtocolError) -> Int {
        guard let value = object[key] else { throw .missing(name(key), in: type) }
        guard let number = value.intValue else { throw .wrongType(name(key), expected: "an integer", in: type) }
        guard range.contains(number) else {
            throw ProtocolError(.badMessage, "field '\(name(key))' is out of range", ref: type)
        }
        return number
    }

    func optionalInt(_ key: String, in range: ClosedRange<Int> = 0...Int(Int32.max)) throws(ProtocolError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.intValue else { throw .wrongType(name(key), expected: "an integer", in: type) }
        guard range.contains(number) else {
            throw ProtocolError(.badMessage, "field '\(name(key))' is out of range", ref: type)
        }
        return number
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool {
        guard let value = object[key] else { throw .missing(name(key), in: type) }
        guard let flag = value.boolValue else { throw .wrongType(name(key), expected: "a boolean", in: type) }
        return flag
    }

    func optionalBool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw .wrongType(name(key), expected: "a boolean", in: type) }
        return flag
    }

    func array(_ key: String, maxCount: Int = 1_000) throws(ProtocolError) -> [JSONValue] {
        guard let value = object[key] else { throw .missing(name(key), in: type) }
        guard let elements = value.arrayValue else { throw .wrongType(name(key), expected: "an array", in: type) }
        guard elements.count <= maxCount else {
            throw ProtocolError(.badMessage, "field '\(name(key))' has too many entries", ref: type)
        }
        return elements
    }

    func optionalArray(_ key: String, maxCount: Int = 1_000) throws(ProtocolError) -> [JSONValue]? {
        guard let value = object[key], !value.isNull else { return nil }
        return try array(key, maxCount: maxCount)
    }

    func strings(_ key: String, maxCount: Int = 1_000) throws(ProtocolError) -> [String] {
        var result: [String] = []
        for (index, element) in try array(key, maxCount: maxCount).enumerated() {
            guard let text = element.stringValue else {
                throw .wrongType("\(name(key))[\(index)]", expected: "a string", in: type)
            }
            result.append(text)
        }
        return result
    }

    func optionalStrings(_ key: String) throws(ProtocolError) -> [String]? {
        guard let value = object[key], !value.isNull else { return nil }
        return try strings(key)
    }

    /// An optional array of strings held to a count and a per-item length.
    func optionalStrings(_ key: String, maxCount: Int, maxLength: Int) throws(ProtocolError) -> [String]? {
        guard let value = object[key], !value.isNull else { return nil }
        let texts = try strings(key, maxCount: maxCount)
        for (index, text) in texts.enumerated() where text.utf8.count > maxLength {
            throw ProtocolError(
                .badMessage, "field '\(name(key))[\(index)]' is too long (at most \(maxLength) bytes)", ref: type)
        }
        return texts
    }

    func object(_ key: String) throws(ProtocolError) -> Fields {
        guard let value = object[key] else { throw .missing(name(key), in: type) }
        guard case .object = value else { throw .wrongType(name(key), expected: "an object", in: type) }
        return Fields(value, type: type, path: name(key))
    }

    func optionalObject(_ key: String) throws(ProtocolError) -> Fields? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .object = value else { throw .wrongType(name(key), expected: "an object", in: type) }
        return Fields(value, type: type, path: name(key))
    }

    func value(_ key: String) throws(ProtocolError) -> JSONValue {
        guard let value = object[key] else { throw .missing(name(key), in: type) }
        return value
    }

    func oneOf(_ key: String, _ allowed: [String]) throws(ProtocolError) -> String {
        let text = try string(key)
        guard allowed.contains(text) else {
            throw ProtocolError(
                .badMessage, "field '\(name(key))' must be one of \(allowed.joined(separator: ", "))", ref: type)
        }
        return text
    }
}
