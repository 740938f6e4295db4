import Testing

@testable import RemoteModalDemo

@Suite("The demo's words: sizes as both clients say them")
struct WordsTests {
    @Test(arguments: [
        (1, "1 byte"), (820, "820 bytes"), (999, "999 bytes"), (1_000, "1 kB"), (34_000, "34 kB"),
        (300_000, "300 kB"), (9_437_184, "9.4 MB"), (9_500_000, "9.5 MB"), (10_485_760, "10.5 MB"),
        (99_960, "100 kB"), (999_960, "1 MB"), (123_456_789, "123 MB"),
    ])
    func sizes(bytes: Int, words: String) {
        #expect(readableSize(bytes) == words)
    }
}
