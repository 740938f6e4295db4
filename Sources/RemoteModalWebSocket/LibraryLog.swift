import CRemoteModalLibWebSockets
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
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

    /// When each kind of line was last written, and how many of that kind were left out.
    private static let recent = Locked<[String: (last: ContinuousClock.Instant, skipped: Int)]>([:])

    /// Whether a line may be written now: at most one line of a kind a second (lws repeats
    /// some errors for every poll, `accept: errno 24` among them). The kind is the line with
    /// its digits removed. Returns the number left out since the last one written.
    static func admit(_ line: String, now: ContinuousClock.Instant = .now) -> Int? {
        let kind = String(line.unicodeScalars.filter { !("0"..."9").contains($0) }.prefix(48))
        return recent.withLock { recent -> Int? in
            if let entry = recent[kind], now - entry.last < .seconds(1) {
                recent[kind]!.skipped += 1
                return nil
            }
            if recent.count > 256 { recent.removeAll() }
            let skipped = recent[kind]?.skipped ?? 0
            recent[kind] = (now, 0)
            return skipped
        }
    }

    fileprivate static func emit(_ level: Int32, _ line: String) {
        guard let logger = logger.withLock({ $0 }) else { return }
        var trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let skipped = admit(trimmed) else { return }
        if skipped > 0 { trimmed += " (\(skipped) more like it in the last second)" }
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
