import RemoteModalProtocol
import Testing

/// A frame of `header` (as given, its length prefixed) followed by `payload`.
private func frame(_ header: String, _ payload: [UInt8] = []) -> [UInt8] {
    let bytes = Array(header.utf8)
    return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes + payload
}

private func refusal(_ frame: [UInt8]) -> ProtocolError? {
    do {
        _ = try ClientMessage.decodeBinary(frame)
        return nil
    } catch {
        return error
    }
}

@Suite("Binary chunks: the frame's layout and every way it can be wrong")
struct BinaryFrameTests {
    @Test func aChunkRoundTripsThroughItsBinaryFrame() throws {
        let bytes: [UInt8] = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let chunk = UploadChunk(
            id: "m7", file: 2, name: "cat \"1\".png", mimeType: "image/png", size: 5_000, offset: 4_000, data: "",
            bytes: bytes, last: true)
        let encoded = chunk.binaryFrame()
        // Two bytes of big-endian length, the header, the raw bytes: nothing base64.
        let headerLength = Int(encoded[0]) << 8 | Int(encoded[1])
        #expect(encoded.count == 2 + headerLength + bytes.count)
        #expect(Array(encoded.suffix(bytes.count)) == bytes)
        #expect(try ClientMessage.decodeBinary(encoded) == .upload(chunk))
    }

    @Test func aTextChunkGoesBinaryWithItsBase64Decoded() throws {
        let text = UploadChunk(
            id: "m1", file: 0, name: "a.png", mimeType: "image/png", size: 3, offset: 0, data: "AQID", last: true)
        guard case .upload(let decoded) = try ClientMessage.decodeBinary(text.binaryFrame()) else {
            Issue.record("not an upload")
            return
        }
        #expect(decoded.bytes == [1, 2, 3])
        #expect(decoded.data == "")
    }

    @Test func anEmptyFileIsAHeaderAlone() throws {
        let message = try ClientMessage.decodeBinary(
            frame(
                #"{"type":"upload","id":"m1","file":0,"name":"e.png","mimeType":"image/png","size":0,"offset":0,"last":true}"#
            ))
        guard case .upload(let chunk) = message else {
            Issue.record("not an upload")
            return
        }
        #expect(chunk.bytes == [])
    }

    @Test func framesThatAreNotBinaryChunksAreRefusedSayingWhy() {
        let good =
            #"{"type":"upload","id":"m1","file":0,"name":"a.png","mimeType":"image/png","size":3,"offset":0,"last":true}"#
        let empty = refusal([])
        #expect(empty?.code == .badMessage)
        #expect(empty?.message.contains("2 bytes") == true)
        #expect(refusal([0]).map(\.code) == .badMessage)
        // A length past the frame, past the limit, or too short for an object.
        #expect(refusal([0x10, 0x00] + Array(good.utf8)).map(\.code) == .badMessage)
        #expect(refusal([0xFF, 0xFF] + [UInt8](repeating: 0x20, count: 70_000)).map(\.code) == .badMessage)
        #expect(refusal([0x00, 0x01, 0x7B]).map(\.code) == .badMessage)
        #expect(refusal(frame("{\"type\":")).map(\.code) == .badJSON)
        #expect(refusal([0x00, 0x02, 0xC3, 0x28]).map(\.code) == .badJSON)
        #expect(refusal(frame("[1,2]")).map(\.code) == .badMessage)
        #expect(refusal(frame(#"{"type":"result","id":"m1","value":1}"#)).map(\.code) == .badMessage)
        // Bytes go after the header, never in it.
        let withData =
            #"{"type":"upload","id":"m1","file":0,"name":"a.png","mimeType":"image/png","size":3,"offset":0,"data":"AQID","last":true}"#
        let inHeader = refusal(frame(withData))
        #expect(inHeader?.code == .badMessage)
        #expect(inHeader?.message.contains("'data'") == true)
        // A missing field is named, and the refusal concerns the modal.
        let noSize = refusal(
            frame(
                #"{"type":"upload","id":"m1","file":0,"name":"a.png","mimeType":"image/png","offset":0,"last":true}"#,
                [1, 2, 3]))
        #expect(noSize?.message.contains("size") == true)
        #expect(noSize?.id == "m1")
        #expect(refusal(frame(good, [1, 2, 3])) == nil)
    }
}
