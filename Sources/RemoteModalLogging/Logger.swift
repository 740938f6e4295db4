import Foundation
import RemoteModalLocking
import Synchronization

/// How important a log line is; lines below the logger's level are dropped.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    /// Very detailed tracing.
    case trace
    /// Details useful while developing.
    case debug
    /// Normal events (connections, sessions).
    case info
    /// Something unexpected that the program survived.
    case warning
    /// A failure.
    case error

    /// Compares by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Parses ``trace``, ``debug``, ``info``, ``warning`` (or `warn`) and ``error``.
    /// - Parameter name: The level's name, any case.
    public init?(name: String) {
        switch name.lowercased() {
        case "trace": self = .trace
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    /// The level's name.
    public var name: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// A small thread-safe logger: one line per event, `time level [label] message`.
public struct Logger: Sendable {
    /// Where lines go.
    public typealias Sink = @Sendable (String) -> Void

    /// The component name shown in each line.
    public let label: String
    private let settings: LoggerSettings

    /// Creates a logger.
    /// - Parameters:
    ///   - label: The component name.
    ///   - settings: The shared level and sink (defaults to the process-wide ones).
    public init(label: String, settings: LoggerSettings = .shared) {
        self.label = label
        self.settings = settings
    }

    /// Whether lines of a level are written.
    /// - Parameter level: The level.
    /// - Returns: `true` when the level is at or above the configured one.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= settings.level }

    /// Writes a line if the level is enabled; the message is built only then.
    /// - Parameters:
    ///   - level: The line's level.
    ///   - message: The text.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        // Defence in depth: whatever a message holds, the line stays one line with no
        // terminal control (client strings are also quoted with `logSafe`).
        settings.emit(LogRecord(level: level, label: label, message: escapeLogLine(message())))
    }

    /// Writes a `trace` line.
    /// - Parameter message: The text.
    public func trace(_ message: @autoclosure () -> String) { log(.trace, message()) }
    /// Writes a `debug` line.
    /// - Parameter message: The text.
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// Writes an `info` line.
    /// - Parameter message: The text.
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Writes a `warning` line.
    /// - Parameter message: The text.
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Writes an `error` line.
    /// - Parameter message: The text.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// One event, for an application that sends the host's logs to its own logging system
/// (`LoggerSettings.setHandler(_:)`).
public struct LogRecord: Sendable, Equatable {
    /// The level.
    public var level: LogLevel
    /// The component (`host`, `transport`, `lws`, ...).
    public var label: String
    /// The text: one line, no terminal control, secrets already shortened.
    public var message: String
}

/// The level and destination shared by a set of loggers.
///
/// An application on swift-log (or any other logging system) takes the records instead of
/// formatted lines:
///
/// ```swift
/// LoggerSettings.shared.setHandler { record in
///     appLogger.log(level: record.level == .error ? .error : .info, "\(record.message)",
///                   metadata: ["component": "\(record.label)"])
/// }
/// ```
public final class LoggerSettings: Sendable {
    private let state: Locked<(level: LogLevel, sink: Boxed<Logger.Sink>)>
    private let handler = Locked<Boxed<@Sendable (LogRecord) -> Void>?>(nil)

    /// The process-wide settings: level `info`, lines to standard error.
    public static let shared = LoggerSettings(level: .info)

    /// Creates settings.
    /// - Parameters:
    ///   - level: The lowest level written.
    ///   - sink: Where lines go (standard error by default).
    public init(level: LogLevel, sink: @escaping Logger.Sink = LoggerSettings.standardError) {
        state = Locked((level, Boxed(sink)))
    }

    /// The lowest level written.
    public var level: LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// Replaces where lines go.
    /// - Parameter sink: The new destination.
    public func setSink(_ sink: @escaping Logger.Sink) { state.withLock { $0.sink = Boxed(sink) } }

    /// Sends records to `handler` instead of lines to the sink (`nil`: lines again).
    /// - Parameter handler: Called for each record at or above `level`, on the thread that logs.
    public func setHandler(_ handler: (@Sendable (LogRecord) -> Void)?) {
        self.handler.withLock { $0 = handler.map(Boxed.init) }
    }

    func emit(_ record: LogRecord) {
        if let handler = handler.withLock({ $0 }) { return handler.value(record) }
        let time = Date().formatted(.iso8601.time(includingFractionalSeconds: true))
        write("\(time) \(record.level.name) [\(record.label)] \(record.message)")
    }

    func write(_ line: String) {
        let sink = state.withLock { $0.sink }
        sink.value(line)
    }

    /// Writes a line to standard error.
    public static let standardError: Logger.Sink = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Shortens a secret (session id, token) for logs: the first 6 characters and an ellipsis.
/// - Parameter secret: The full secret.
/// - Returns: A prefix safe to log.
public func redacted(_ secret: String) -> String {
    secret.count <= 6 ? "…" : String(secret.prefix(6)) + "…"
}
