import RemoteModalQRCode

/// The QR code of a sign-in address, drawn with half blocks (two modules per character).
public enum KioskQR {
    /// The rows of the code for an address, in the room left on screen, or one line saying
    /// what size of terminal would show it.
    static func rows(
        _ url: String, room: Int, width: Int, needed: Int, appearance: KioskScreen.Appearance
    ) -> [KioskScreen.Row] {
        guard let code = try? QRCode(url, correction: .low) else {
            return room >= 1 ? [KioskScreen.Row("(No QR code: the address is too long for one.)", .dim)] : []
        }
        // Without colour the glyphs take the terminal's own foreground: on a dark background
        // they are light, so they draw the light modules (a decoder reads dark on light).
        let glyphsAreDark = appearance.colour || appearance.lightBackground
        // A 4-module quiet zone when there is room, else 2 (enough on a lit screen).
        for quiet in [4, 2] where code.size + 2 * quiet <= width {
            let drawn = halfBlocks(code, quietZone: quiet, glyphsAreDark: glyphsAreDark)
            if drawn.count <= room { return drawn.map { KioskScreen.Row(spans: [($0, .qr)]) } }
        }
        guard room >= 1 else { return [] }
        let side = (code.size + 4 + 1) / 2
        // This terminal's width where it is wide enough: only the rows are short then.
        let size = "\(max(width, KioskScreen.minimumWidth, code.size + 4))x\(needed + side)"
        return [KioskScreen.Row("(A QR code of this address shows in a \(size) terminal.)", .dim)]
    }

    /// Draws a code with half blocks: each character is a top and a bottom module. With
    /// `glyphsAreDark` a dark module is the glyph's foreground (black on the white the
    /// screen sets), so "▀" is dark above, light below; without, the light modules are.
    /// - Parameters:
    ///   - code: The code.
    ///   - quietZone: Light modules around it.
    ///   - glyphsAreDark: Whether the glyphs draw the dark modules.
    /// - Returns: One string per two module rows.
    public static func halfBlocks(_ code: QRCode, quietZone: Int, glyphsAreDark: Bool = true) -> [String] {
        let side = code.size + 2 * quietZone
        return stride(from: 0, to: side, by: 2).map { row in
            String(
                (0..<side).map { column -> Character in
                    var top = code[row - quietZone, column - quietZone]
                    var bottom = row + 1 < side && code[row + 1 - quietZone, column - quietZone]
                    if !glyphsAreDark {
                        top.toggle()
                        // The row past an odd side is the terminal's background: dark.
                        bottom = row + 1 < side ? !bottom : false
                    }
                    switch (top, bottom) {
                    case (true, true): return "\u{2588}"
                    case (true, false): return "\u{2580}"
                    case (false, true): return "\u{2584}"
                    case (false, false): return " "
                    }
                })
        }
    }
}
