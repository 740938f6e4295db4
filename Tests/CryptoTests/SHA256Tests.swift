import RemoteModalCrypto
import Testing

@Suite("SHA-256 (libcrypto)")
struct SHA256Tests {
    /// FIPS 180-4 examples (NIST's "SHA256.pdf") and the empty string.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func knownAnswers(input: String, digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
        #expect(SHA256.hash(input.utf8).bytes.count == 32)
    }

    @Test func aMillionAsInThousandByteUpdates() {
        var hash = SHA256()
        for _ in 0..<1_000 { hash.update([UInt8](repeating: 0x61, count: 1_000)) }
        #expect(hash.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func theEmptyInputAndEmptyUpdates() {
        var hash = SHA256()
        hash.update([UInt8]())
        hash.update(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(hash.finalize().hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hash.finalize().bytes.prefix(4) == [0xe3, 0xb0, 0xc4, 0x42])
    }

    /// Splits at odd places (1, 63, 64, 65 bytes: inside, at and past the 64-byte block)
    /// and through a raw buffer and a non-contiguous sequence give the one-shot digest.
    @Test(arguments: [[1], [63], [64], [65], [1, 2, 3, 5, 7, 11, 13], [127, 1, 129], [3_001]])
    func streamingInOddSplitsEqualsOneShot(splits: [Int]) {
        var state: UInt32 = 0x1234_5678
        let data = (0..<10_000).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let oneShot = SHA256.hash(data)
        var hash = SHA256()
        var offset = 0
        var turn = 0
        while offset < data.count {
            let end = min(data.count, offset + splits[turn % splits.count])
            switch turn % 3 {
            case 0: hash.update(data[offset..<end])
            case 1: data[offset..<end].withUnsafeBytes { hash.update($0) }
            default: hash.update(data[offset..<end].lazy.map { $0 })  // not contiguous
            }
            offset = end
            turn += 1
        }
        #expect(hash.finalize() == oneShot)
        #expect(oneShot.hex.count == 64)
    }

    @Test func finalizingLeavesTheHashGoingOnAndCopiesAreIndependent() {
        var hash = SHA256()
        hash.update("ab".utf8)
        let copy = hash
        #expect(hash.finalize().hex == SHA256.hex("ab".utf8))
        hash.update("c".utf8)
        #expect(hash.finalize().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // The copy taken before "c" did not see it.
        #expect(copy.finalize().hex == SHA256.hex("ab".utf8))
        var other = copy
        other.update("x".utf8)
        #expect(copy.finalize().hex == SHA256.hex("ab".utf8))
        #expect(other.finalize().hex == SHA256.hex("abx".utf8))
    }
}
