import Foundation
import Testing

@testable import RemoteModalWebSocket

@Suite("Message assembly: text is valid UTF-8 or the connection closes with 1007")
struct MessageAssemblerTests {
    static func feed(_ bytes: [UInt8]) -> MessageAssembler.Output {
        var assembler = MessageAssembler(limit: 1_024)
        return bytes.withUnsafeBytes { assembler.feed($0, isFinal: true, binary: false) }
    }

    @Test(arguments: [
        "", "a", "{\"type\":\"event\",\"control\":\"signIn\"}", "exactly8", "sixteen bytes!!!",
        "Zoë signs in", "✓ done", "emoji 🙂 at the end 🙂", String(repeating: "é", count: 33),
    ])
    func validTextArrivesWhole(text: String) {
        #expect(Self.feed(Array(text.utf8)) == .message(.text(text)))
    }

    @Test(
        arguments: [
            [0xFF], [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x80], [0xC0, 0xAF],
            [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x9C], [0xF4, 0x90, 0x80, 0x80],
            Array("ascii before the bad byte".utf8) + [0xC3],
        ] as [[UInt8]])
    func invalidTextIsRefused(bytes: [UInt8]) {
        #expect(Self.feed(bytes) == .invalidText)
    }

    static func validates(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return bytes.withUnsafeBytes { validator.feed($0) } && validator.isAtBoundary
    }

    @Test func theFastPathLooksAtEveryByte() {
        for length in 1...24 {
            for position in 0..<length {
                var bytes = [UInt8](repeating: 0x41, count: length)
                #expect(Self.validates(bytes))
                bytes[position] = 0xC3
                #expect(!Self.validates(bytes), "a lone lead byte at \(position) of \(length)")
                bytes[position] = 0x80
                #expect(!Self.validates(bytes), "a lone continuation byte at \(position) of \(length)")
            }
        }
    }

    @Test func theValidatorAgreesWithTheStandardLibraryOnEveryTwoByteInput() {
        for first in 0...255 {
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second)]
                let expected = String(validating: bytes, as: UTF8.self) != nil
                #expect(Self.validates(bytes) == expected, "\(bytes)")
            }
        }
    }

    @Test func theValidatorAgreesWithTheStandardLibraryOnEveryLeadOfThreeAndFourBytes() {
        // Every lead byte from C0 on, with continuation candidates at each range's edges.
        let edges: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for lead in 0xC0...0xFF {
            for second in edges {
                for third in edges {
                    let three = [UInt8(lead), second, third]
                    #expect(Self.validates(three) == (String(validating: three, as: UTF8.self) != nil), "\(three)")
                    for fourth in edges {
                        let four = three + [fourth]
                        #expect(Self.validates(four) == (String(validating: four, as: UTF8.self) != nil), "\(four)")
                    }
                }
            }
        }
    }

    @Test func aCharacterSplitAcrossPiecesIsAccepted() {
        let bytes = Array("ascii then 🙂 and é".utf8)
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let first = bytes[..<split].withUnsafeBytes { validator.feed($0) }
            let second = bytes[split...].withUnsafeBytes { validator.feed($0) }
            #expect(first && second && validator.isAtBoundary, "split at \(split)")
        }
    }

    @Test func badUTF8InTheFirstPieceIsRefusedAtOnce() {
        // RFC 6455 §8.1 (Autobahn 6.x "fail fast"): the message is not waited for.
        var assembler = MessageAssembler(limit: 4_096)
        let bad: [UInt8] = Array("fine so far ".utf8) + [0xF5]
        let output = bad.withUnsafeBytes {
            assembler.feed($0, isFinal: false, binary: false, remainingInFrame: 1_000)
        }
        #expect(output == .invalidText)
    }

    @Test func aMessageEndingInsideACharacterIsRefused() {
        var assembler = MessageAssembler(limit: 4_096)
        let start = Array("café".utf8).dropLast()
        let first = Array(start).withUnsafeBytes { assembler.feed($0, isFinal: false, binary: false) }
        #expect(first == .incomplete)
        let last = Array("!".utf8).withUnsafeBytes { assembler.feed($0, isFinal: true, binary: false) }
        #expect(last == .invalidText)
    }

    @Test func binaryMessagesAreNotChecked() {
        var assembler = MessageAssembler(limit: 64)
        let bytes: [UInt8] = [0xFF, 0xC0, 0x80]
        #expect(
            bytes.withUnsafeBytes { assembler.feed($0, isFinal: true, binary: true) } == .message(.binary(Data(bytes))))
    }

    /// Feeds `text` in pieces of `piece` bytes, saying how much of the frame is still to come.
    static func feedInPieces(_ assembler: inout MessageAssembler, _ text: String, piece: Int) -> [MessageAssembler
        .Output]
    {
        let bytes = Array(text.utf8)
        var outputs: [MessageAssembler.Output] = []
        var offset = 0
        repeat {
            let end = min(bytes.count, offset + piece)
            let output = bytes[offset..<end].withUnsafeBytes {
                assembler.feed($0, isFinal: end == bytes.count, binary: false, remainingInFrame: bytes.count - end)
            }
            outputs.append(output)
            offset = end
        } while offset < bytes.count
        return outputs
    }

    @Test func aWholeMessageLeavesNoBufferBehind() {
        var assembler = MessageAssembler(limit: 1_024)
        let text = "{\"type\":\"hello\"}"
        let output = Array(text.utf8).withUnsafeBytes { assembler.feed($0, isFinal: true, binary: false) }
        #expect(output == .message(.text(text)))
        #expect(!assembler.holdsBuffer)
    }

    @Test(arguments: [1, 7, 100, 999])
    func aMessageInPiecesArrivesWholeAndItsBufferIsReleased(piece: Int) {
        var assembler = MessageAssembler(limit: 4_096)
        let text = String(repeating: "chunk é ", count: 100)
        let outputs = Self.feedInPieces(&assembler, text, piece: piece)
        #expect(outputs.last == .message(.text(text)))
        #expect(outputs.dropLast().allSatisfy { $0 == .incomplete })
        #expect(!assembler.holdsBuffer)
        // The next message on the same connection is not mixed with the last one.
        let next = Self.feedInPieces(&assembler, "second", piece: 2)
        #expect(next.last == .message(.text("second")))
        #expect(!assembler.holdsBuffer)
    }

    @Test func aPieceStillPassesTheLimitWithWhatIsToCome() {
        var assembler = MessageAssembler(limit: 100)
        let output = [UInt8](repeating: 0x61, count: 10).withUnsafeBytes {
            assembler.feed($0, isFinal: false, binary: false, remainingInFrame: 91)
        }
        #expect(output == .tooLarge)
        #expect(!assembler.holdsBuffer)
    }
}
