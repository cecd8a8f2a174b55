import ArgumentParser
@testable import BridgetCLI
import BridgetCore
import BridgetRuntime
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

    @Test("a bridget whose composition registered no server exits 69 from serve, saying how to build it")
    func withoutTheServer() async throws {
        // The commands' tests run without the executable's composition root, so no part is registered: a build
        // without the Server trait, whatever this test build's traits.
        #expect(BuildParts.current.server == nil)
        let command = try ServeCommand.parse([])
        await #expect(throws: ExitCode(ErrorTable.unavailable)) { try await command.run() }
        let error = #expect(throws: BridgetError.self) { try BuildParts().requireServer() }
        #expect(error?.kind == .serveMissing)
        #expect(error?.hint?.contains("--traits Server") == true)
    }
}
