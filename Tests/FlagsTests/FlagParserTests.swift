import RemoteModalFlags
import Testing

@Suite("Flag parser")
struct FlagParserTests {
    let parser = FlagParser(
        [
            FlagSpec("port", value: "N", help: "port"), FlagSpec("echo", help: "echo mode"),
            FlagSpec("allowed-origin", value: "ORIGIN", help: "origin", repeatable: true),
        ], environmentPrefix: "MODAL_HOST")

    @Test func valuesSwitchesAndEqualsForm() throws {
        let flags = try parser.parse([
            "--port", "9000", "--echo", "--allowed-origin=https://a", "--allowed-origin", "b",
        ])
        #expect(try flags.int("port") == 9000)
        #expect(flags.has("echo"))
        #expect(flags.strings("allowed-origin") == ["https://a", "b"])
    }

    @Test func unknownFlagIsRefusedWithItsName() {
        #expect(throws: FlagError.unknown("--prot")) { try parser.parse(["--prot", "1"]) }
    }

    @Test func missingAndInvalidValues() throws {
        #expect(throws: FlagError.missingValue("port")) { try parser.parse(["--port"]) }
        let flags = try parser.parse(["--port", "eighty"])
        #expect(throws: FlagError.self) { try flags.int("port", in: 0...65_535) }
        #expect(throws: FlagError.repeated("port")) { try parser.parse(["--port", "1", "--port", "2"]) }
    }

    @Test func environmentGivesDefaultsAndFlagsWin() throws {
        let environment = ["MODAL_HOST_PORT": "7000", "MODAL_HOST_ALLOWED_ORIGIN": "a, b", "MODAL_HOST_ECHO": "1"]
        let fromEnvironment = try parser.parse([], environment: environment)
        #expect(try fromEnvironment.int("port") == 7000)
        #expect(fromEnvironment.strings("allowed-origin") == ["a", "b"])
        #expect(fromEnvironment.has("echo"))
        let overridden = try parser.parse(["--port", "1"], environment: environment)
        #expect(try overridden.int("port") == 1)
    }

    @Test func helpListsFlagsAndVariables() {
        let help = parser.help(usage: "modal-host [flags]")
        #expect(help.contains("--port N"))
        #expect(help.contains("MODAL_HOST_ALLOWED_ORIGIN"))
        #expect(help.contains("(repeatable)"))
    }
}
