import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal in raw mode: keys in, full-screen frames out, the original mode restored
/// on exit (including Ctrl-C and fatal signals).
public final class Terminal: @unchecked Sendable {
    // `@unchecked Sendable`: `original` is written once in `enterRawMode`, before any other
    // thread uses the terminal; the rest is immutable.
    private var original = termios()
    private var raw = false

    /// Creates a handle on standard input and output.
    public init() {}

    /// Whether standard input is a terminal.
    public var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Switches to raw mode (no echo, no line buffering, Ctrl-C read as a key).
    public func enterRawMode() {
        guard isInteractive, !raw else { return }
        tcgetattr(STDIN_FILENO, &original)
        var mode = original
        mode.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        mode.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &mode)
        raw = true
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Restores the mode the terminal had.
    public func restore() {
        guard raw else { return }
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
        raw = false
    }

    /// The size in columns and rows.
    public var size: (columns: Int, rows: Int) {
        var window = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 {
            return (Int(window.ws_col), Int(window.ws_row))
        }
        return (80, 24)
    }

    /// Draws a whole frame over the last one without clearing first (no flicker): each
    /// line clears its row, and what is left below is cleared at the end.
    /// - Parameters:
    ///   - lines: The lines (with ANSI codes); one longer than `width` wraps in the terminal.
    ///   - width: The terminal's columns (to tell which lines fill their last row).
    ///   - height: The terminal's rows.
    public func draw(_ lines: [String], width: Int, height: Int) {
        var frame = "\u{1B}[H"
        var rows = 0
        for (index, line) in lines.enumerated() {
            let visible = Self.visibleCount(line)
            let taken = max(1, (visible + max(1, width) - 1) / max(1, width))
            frame += "\u{1B}[2K" + line
            // A line ending mid-row clears the rest of it (a wrapped line's last row may hold old text);
            // one that fills its row must not: the cursor waits on the last column.
            if visible % max(1, width) != 0 || visible == 0 { frame += "\u{1B}[K" }
            rows += taken
            if index < lines.count - 1 { frame += "\r\n" }
        }
        if rows < height { frame += "\r\n\u{1B}[J" }
        write(frame)
    }

    /// Characters that take a column: all but ANSI escape sequences.
    static func visibleCount(_ line: String) -> Int {
        var count = 0
        var escape = false
        for character in line.unicodeScalars {
            if escape {
                if (0x40...0x7E).contains(character.value), character != "[" { escape = false }
            } else if character == "\u{1B}" {
                escape = true
            } else {
                count += 1
            }
        }
        return count
    }

    /// Writes text.
    /// - Parameter text: The text.
    public func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Reads keys until end of input, calling `handle` for each (on the calling thread). A
    /// lone ESC becomes Escape after `KeyDecoder.escapeTimeout` of quiet; the ESC that
    /// starts a sequence never does.
    /// - Parameter handle: Called per key.
    public func readKeys(_ handle: (Key) -> Void) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            if decoder.hasPending {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, KeyDecoder.escapeTimeout) == 0 {
                    for key in decoder.flush() { handle(key) }
                    continue
                }
            }
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 { return }
            for key in decoder.feed(Array(buffer[0..<count])) { handle(key) }
        }
    }
}
