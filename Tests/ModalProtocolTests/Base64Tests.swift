import Foundation
import RemoteModalProtocol
import Testing

@Suite("Base64: strict, table-driven")
struct Base64Tests {
    /// RFC 4648, section 10.
    @Test(arguments: [
        ("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"), ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"),
    ])
    func rfc4648Vectors(encoded: String, decoded: String) {
        #expect(Base64.decode(encoded) == Array(decoded.utf8))
    }

    /// Every length from 0 to 100 and a full 32 KiB chunk of every byte value, against
    /// Foundation's encoder.
    @Test func roundTripsFoundationsEncoding() {
        var state: UInt32 = 7
        func random(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                state = state &* 1_103_515_245 &+ 12_345
                return UInt8(truncatingIfNeeded: state >> 16)
            }
        }
        for count in 0...100 {
            let bytes = random(count)
            #expect(Base64.decode(Data(bytes).base64EncodedString()) == bytes, "length \(count)")
        }
        let chunk = random(32 * 1_024) + Array(0...255)
        #expect(Base64.decode(Data(chunk).base64EncodedString()) == chunk)
        // "+/+/" is 62, 63, 62, 63: 111110 111111 111110 111111.
        #expect(Base64.decode(String(repeating: "+/", count: 8)) == (0..<12).map { [0xFB, 0xFF, 0xBF][$0 % 3] })
    }

    /// Characters outside the alphabet, anywhere: the URL alphabet, whitespace, a NUL,
    /// non-ASCII, in the first, a middle and the last group.
    @Test(arguments: [
        "Zm9-", "Zm9_", " Zm9v", "Zm9v\n", "Zm 9v", "Zm9v\u{0}AAA", "Zm9vYmF\u{e9}", "éAAA", "Zm9v!mFy", "Zm9vYmF*",
        "%%%%",
    ])
    func refusesCharactersOutsideTheAlphabet(text: String) {
        #expect(Base64.decode(text) == nil, "\(text.debugDescription)")
    }

    /// Padding that is missing, too much, or not at the end.
    @Test(arguments: ["Zg", "Zg=", "Zm8", "Z===", "====", "Zg==Zg==", "Zm9vYg==Zm9v", "Zg=a", "Zm=v", "=Zm9", "Zm9vY"])
    func refusesBadPaddingAndLengths(text: String) {
        #expect(Base64.decode(text) == nil, "\(text.debugDescription)")
    }

    /// The unused low bits of a padded group are not checked, as Foundation does not.
    @Test func acceptsNonZeroPadBitsAsFoundationDoes() {
        #expect(Base64.decode("Zh==") == Array("f".utf8))
        #expect(Data(base64Encoded: "Zh==").map { Array($0) } == Array("f".utf8))
    }

    /// Against Foundation on 20,000 short random texts over the alphabet, `=` and a few
    /// others: whatever this decoder takes, Foundation takes with the same bytes, and what
    /// Foundation refuses this one refuses (it is only stricter, about `=`).
    @Test func neverLaxerThanFoundationAndAgreesWhereItDecodes() {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/====-_ \n.".utf8)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(Int32.max))
        }
        var decoded = 0
        for _ in 0..<20_000 {
            let count = [4, 8, 12, next() % 13][next() % 4]
            let text = String(decoding: (0..<count).map { _ in characters[next() % characters.count] }, as: UTF8.self)
            let ours = Base64.decode(text)
            let foundation = Data(base64Encoded: text).map { Array($0) }
            if let ours {
                decoded += 1
                #expect(foundation == ours, "\(text.debugDescription)")
            }
            if foundation == nil { #expect(ours == nil, "\(text.debugDescription)") }
        }
        #expect(decoded > 1_000)
    }

    @Test func decodesIntoABufferAndRefusesOneTooSmall() {
        let text = Array("Zm9vYmFy".utf8)
        var out = [UInt8](repeating: 0, count: 6)
        let count = text.withUnsafeBufferPointer { utf8 in
            out.withUnsafeMutableBytes { Base64.decode(utf8: utf8, into: $0) }
        }
        #expect(count == 6)
        #expect(out == Array("foobar".utf8))
        var small = [UInt8](repeating: 0, count: 5)
        let refused = text.withUnsafeBufferPointer { utf8 in
            small.withUnsafeMutableBytes { Base64.decode(utf8: utf8, into: $0) }
        }
        #expect(refused == nil)
        #expect(Base64.maxDecodedCount(encodedCount: 43_692) == 32_769)
    }
}
