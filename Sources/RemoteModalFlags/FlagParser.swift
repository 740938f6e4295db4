import Foundation

/// One command-line flag.
public struct FlagSpec: Sendable {
    /// The name without dashes (`port` for `--port`).
    public let name: String
    /// The placeholder shown in help (`N`, `PATH`), or `nil` for a switch without value.
    public let valueName: String?
    /// One line of help.
    public let help: String
    /// Whether the flag may be given more than once.
    public let repeatable: Bool

    /// Creates a flag.
    /// - Parameters:
    ///   - name: The name without dashes.
    ///   - valueName: The value's placeholder, or `nil` for a switch.
    ///   - help: One line of help.
    ///   - repeatable: Whether it may repeat.
    public init(_ name: String, value valueName: String? = nil, help: String, repeatable: Bool = false) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.repeatable = repeatable
    }
}

/// Why the command line was refused; the message is meant for the person who typed it.
public enum FlagError: Error, Equatable, CustomStringConvertible {
    /// A flag nobody declared.
    case unknown(String)
    /// A flag that needs a value got none.
    case missingValue(String)
    /// A value that does not parse.
    case invalidValue(flag: String, value: String, expected: String)
    /// A non-repeatable flag given twice.
    case repeated(String)
    /// A positional argument where none is accepted.
    case unexpectedArgument(String)
    /// A flag whose value parses but cannot be used (a file that does not read, a flag
    /// that needs another one); the reason is a whole sentence.
    case unusable(flag: String, reason: String)

    /// The message to print.
    public var description: String {
        switch self {
        case .unknown(let flag): "unknown flag '\(flag)' (see --help)"
        case .missingValue(let flag): "flag '--\(flag)' needs a value"
        case .invalidValue(let flag, let value, let expected): "flag '--\(flag)': '\(value)' is not \(expected)"
        case .repeated(let flag): "flag '--\(flag)' given more than once"
        case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
        case .unusable(let flag, let reason): "flag '--\(flag)': \(reason)"
        }
    }
}

/// The flags that were given, after environment defaults were applied.
public struct ParsedFlags: Sendable {
    /// Values by flag name (a switch has the value `true`).
    public let values: [String: [String]]
    /// Positional arguments, in order.
    public let positional: [String]

    /// Whether a flag (or switch) was given.
    /// - Parameter name: The flag's name.
    /// - Returns: `true` when present.
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// The last value of a flag.
    /// - Parameter name: The flag's name.
    /// - Returns: The value, or `nil`.
    public func string(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable flag.
    /// - Parameter name: The flag's name.
    /// - Returns: The values, possibly empty.
    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of a flag as an integer within a range.
    /// - Parameters:
    ///   - name: The flag's name.
    ///   - range: The accepted values.
    /// - Returns: The integer, or `nil` when absent.
    /// - Throws: `FlagError.invalidValue` when it is not an integer in range.
    public func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int? {
        guard let value = string(name) else { return nil }
        guard let number = Int(value), range.contains(number) else {
            throw FlagError.invalidValue(flag: name, value: value, expected: "an integer in \(range)")
        }
        return number
    }

    /// The value of a flag as a positive number of seconds.
    /// - Parameter name: The flag's name.
    /// - Returns: The number, or `nil` when absent.
    /// - Throws: `FlagError.invalidValue` when it is not a positive number.
    public func seconds(_ name: String) throws -> Double? {
        guard let value = string(name) else { return nil }
        guard let number = Double(value), number > 0, number.isFinite else {
            throw FlagError.invalidValue(flag: name, value: value, expected: "a positive number of seconds")
        }
        return number
    }
}

/// Parses `--name value`, `--name=value` and switches, with defaults from environment
/// variables named `PREFIX_NAME` (dashes become underscores, upper case).
public struct FlagParser: Sendable {
    /// The declared flags.
    public let specs: [FlagSpec]
    /// The environment variable prefix (`MODAL_HOST`), or `nil` for none.
    public let environmentPrefix: String?
    /// How many positional arguments are accepted.
    public let maxPositional: Int

    /// Creates a parser.
    /// - Parameters:
    ///   - specs: The flags.
    ///   - environmentPrefix: The environment prefix, or `nil`.
    ///   - maxPositional: How many positional arguments are accepted.
    public init(_ specs: [FlagSpec], environmentPrefix: String? = nil, maxPositional: Int = 0) {
        self.specs = specs + [FlagSpec("help", help: "print this help and exit")]
        self.environmentPrefix = environmentPrefix
        self.maxPositional = maxPositional
    }

    /// The environment variable that sets a flag's default.
    /// - Parameter name: The flag's name.
    /// - Returns: For example `MODAL_HOST_MAX_MESSAGE_BYTES`.
    public func environmentName(_ name: String) -> String? {
        environmentPrefix.map { $0 + "_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// Parses arguments (without the program name).
    /// - Parameters:
    ///   - arguments: The command-line arguments.
    ///   - environment: The environment, for defaults.
    /// - Returns: The parsed flags.
    /// - Throws: `FlagError` for anything it cannot accept.
    public func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> ParsedFlags {
        var values: [String: [String]] = [:]
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                guard positional.count < maxPositional else { throw FlagError.unexpectedArgument(argument) }
                positional.append(argument)
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.split(separator: "=", maxSplits: 1).first ?? "")
            guard let spec = specs.first(where: { $0.name == name }) else { throw FlagError.unknown(argument) }
            if values[name] != nil, !spec.repeatable { throw FlagError.repeated(name) }
            if spec.valueName == nil {
                values[name] = ["true"]
                continue
            }
            let value: String
            if let equals = body.firstIndex(of: "=") {
                value = String(body[body.index(after: equals)...])
            } else {
                guard index < arguments.count else { throw FlagError.missingValue(name) }
                value = arguments[index]
                index += 1
            }
            values[name, default: []].append(value)
        }
        for spec in specs where values[spec.name] == nil {
            guard let variable = environmentName(spec.name), let value = environment[variable], !value.isEmpty
            else { continue }
            if spec.valueName == nil {
                if ["1", "true", "yes"].contains(value.lowercased()) { values[spec.name] = ["true"] }
            } else if spec.repeatable {
                values[spec.name] = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            } else {
                values[spec.name] = [value]
            }
        }
        return ParsedFlags(values: values, positional: positional)
    }

    /// The help text: usage line and one line per flag with its environment variable.
    /// - Parameter usage: The usage line.
    /// - Returns: The text.
    public func help(usage: String) -> String {
        var lines = ["usage: \(usage)", "", "flags:"]
        for spec in specs {
            let left = "  --\(spec.name)" + (spec.valueName.map { " \($0)" } ?? "")
            var line = left.padding(toLength: max(left.count + 1, 30), withPad: " ", startingAt: 0) + spec.help
            if spec.repeatable { line += " (repeatable)" }
            if spec.name != "help", let variable = environmentName(spec.name) { line += " [env \(variable)]" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
