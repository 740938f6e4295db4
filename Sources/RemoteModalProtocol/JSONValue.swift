/// A JSON value with object keys kept in order (so encoding is deterministic).
///
/// NB: not `indirect`: the recursive cases hold arrays, which are references already, and
/// `indirect` boxed every value, numbers and strings too (one allocation each).
public enum JSONValue: Sendable, Equatable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON has one number type; integers are exact up to 2^53).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in order of appearance.
    case object([(String, JSONValue)])

    /// Compares structurally; objects compare by key set and values, not key order, and
    /// a duplicated key counts with its last value (as the subscript reads it).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let l), .bool(let r)): return l == r
        case (.number(let l), .number(let r)): return l == r
        case (.string(let l), .string(let r)): return l == r
        case (.array(let l), .array(let r)): return l == r
        case (.object(let l), .object(let r)):
            return Dictionary(l, uniquingKeysWith: { $1 }) == Dictionary(r, uniquingKeysWith: { $1 })
        default: return false
        }
    }

    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .object(let pairs):
            let keys = Set(pairs.map(\.0))
            hasher.combine(keys.count)
            for key in keys.sorted() { hasher.combine(key) }
        }
    }

    /// The value of a key in an object (the last one for a duplicated key).
    /// - Parameter key: The key.
    /// - Returns: The value, or `nil` when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.last { $0.0 == key }?.1
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an exact integer, if it is one within ±2^53.
    public var intValue: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else {
            return nil
        }
        return Int(value)
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal; keys keep their order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
}
