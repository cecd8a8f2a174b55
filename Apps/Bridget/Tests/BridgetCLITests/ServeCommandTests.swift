import ArgumentParser
@testable import BridgetCLI
import Testing

@Suite("serve and watch commands")
struct ServeCommandTests {
    @Test("serve parses its options and refuses a port out of range; watch takes --once")
    func options() throws {
        #expect(try ServeCommand.parse(["--port", "0"]).port == 0)
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--port", "70000"]) }
        #expect(try ServeCommand.parse([]).port == nil) // serve.port decides
        #expect(try WatchCommand.parse(["--once"]).once)
    }

    #if !Server
    @Test("a bridget built without the Server trait exits 69 from serve, saying how to build it")
    func withoutTheTrait() async throws {
        let command = try ServeCommand.parse([])
        await #expect(throws: ExitCode(69)) { try await command.run() }
    }
    #endif
}
