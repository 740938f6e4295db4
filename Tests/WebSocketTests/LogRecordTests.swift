import RemoteModalLocking
import RemoteModalLogging
import RemoteModalWebSocket
import Testing

@Suite("An application takes the host's logs as records")
struct LogRecordTests {
    @Test func aHandlerGetsLevelLabelAndTheEscapedMessageAndLinesStopUntilItIsRemoved() {
        let lines = Locked<[String]>([])
        let records = Locked<[LogRecord]>([])
        let settings = LoggerSettings(level: .info, sink: { line in lines.withLock { $0.append(line) } })
        let logger = Logger(label: "host", settings: settings)
        settings.setHandler { record in records.withLock { $0.append(record) } }
        logger.debug("below the level")
        logger.warning("bad\u{1B}[31m input")
        #expect(records.withLock { $0.map(\.level) } == [.warning])
        #expect(records.withLock { $0.map(\.label) } == ["host"])
        #expect(records.withLock { $0.first?.message.contains("\u{1B}") } == false)
        #expect(lines.withLock { $0.isEmpty })
        settings.setHandler(nil)
        logger.info("a line again")
        #expect(lines.withLock { $0.count } == 1)
        #expect(lines.withLock { $0.first?.hasSuffix("info [host] a line again") } == true)
    }
}

@Suite("A configured web root that is not a folder stops the server at start, in words")
struct WebRootCheckTests {
    @Test func aMissingWebRootIsRefusedNamingItsAbsolutePath() throws {
        let missing = "no-such-web-root-\(UInt32.random(in: 0...UInt32.max))"
        #expect {
            _ = try makeEchoServer { $0.webRoot = missing }
        } throws: { error in
            guard case WebSocketError.webRootMissing(let path) = error else { return false }
            return path.hasPrefix("/") && path.hasSuffix(missing) && "\(error)".contains("not a folder")
        }
    }
}
