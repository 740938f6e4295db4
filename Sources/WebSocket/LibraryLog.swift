import CLibWebSockets
import Locking
import Logging
import Synchronization

/// Routes libwebsockets' own log lines (process-wide) through the project's logger.
enum LibraryLog {
    private static let logger = Locked<Logger?>(nil)

    /// Installs the bridge at a level; lines below it are not even formatted by lws.
    static func install(level: LogLevel, logger newLogger: Logger) {
        logger.withLock { $0 = newLogger }
        var mask: Int32 = LLL_ERR
        if level <= .warning { mask |= LLL_WARN }
        if level <= .info { mask |= LLL_NOTICE }
        if level <= .debug { mask |= LLL_INFO }
        lws_set_log_level(mask, libraryLogEmit)
    }

    fileprivate static func emit(_ level: Int32, _ line: String) {
        guard let logger = logger.withLock({ $0 }) else { return }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        switch level {
        case LLL_ERR: logger.error(trimmed)
        case LLL_WARN: logger.warning(trimmed)
        case LLL_NOTICE: logger.info(trimmed)
        default: logger.debug(trimmed)
        }
    }
}

private func libraryLogEmit(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    LibraryLog.emit(level, String(cString: line))
}
