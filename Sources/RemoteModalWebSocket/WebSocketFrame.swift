/// The header of an unmasked WebSocket frame (RFC 6455 section 5.2), as a server writes
/// it: how the service loop joins several whole frames into one send.
enum WebSocketFrame {
    /// The data opcodes a server sends.
    enum Opcode: UInt8 {
        case text = 0x1
        case binary = 0x2
    }

    /// Bytes of header before a payload of `payload` bytes (no mask: server to client).
    static func headerSize(payload: Int) -> Int {
        payload < 126 ? 2 : payload <= 0xFFFF ? 4 : 10
    }

    /// Writes one final (FIN) unmasked frame at `destination`, which must have room for
    /// `headerSize(payload:) + payload.count` bytes.
    /// - Returns: The address just past the frame.
    static func write(
        opcode: Opcode, payload: UnsafeRawBufferPointer, at destination: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer {
        let count = payload.count
        var cursor = destination
        cursor.storeBytes(of: 0x80 | opcode.rawValue, as: UInt8.self)
        if count < 126 {
            (cursor + 1).storeBytes(of: UInt8(count), as: UInt8.self)
            cursor += 2
        } else if count <= 0xFFFF {
            (cursor + 1).storeBytes(of: 126, as: UInt8.self)
            (cursor + 2).storeBytes(of: UInt16(count).bigEndian, toByteOffset: 0, as: UInt16.self)
            cursor += 4
        } else {
            (cursor + 1).storeBytes(of: 127, as: UInt8.self)
            (cursor + 2).storeBytes(of: UInt64(count).bigEndian, toByteOffset: 0, as: UInt64.self)
            cursor += 10
        }
        if let source = payload.baseAddress, count > 0 {
            cursor.copyMemory(from: source, byteCount: count)
        }
        return cursor + count
    }
}
