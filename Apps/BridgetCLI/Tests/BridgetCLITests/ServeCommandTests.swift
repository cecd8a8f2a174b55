import ArgumentParser
@testable import BridgetCLI
import Foundation
import Testing
import Yams

@Suite("serve without the server")
struct ServeCommandTests {
    #if Server
    @Test("with the Server trait, serve parses its options and refuses a port out of range")
    func options() throws {
        #expect(try ServeCommand.parse(["--port", "0"]).port == 0)
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--port", "70000"]) }
        #expect(try ServeCommand.parse([]).port == nil) // serve.port decides
        #expect(try WatchCommand.parse(["--once"]).once)
    }

    @Test("Docs/openapi.yaml documents exactly the endpoints the server registers (API.routeTable), no more, no fewer")
    func openAPIMatchesTheRoutes() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/openapi.yaml"), encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let paths = try #require(document["paths"] as? [String: Any])
        var documented: [String] = []
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any])
            for method in ["get", "put", "post", "delete", "patch", "head", "options"] where operations[method] != nil {
                documented.append(method.uppercased() + " " + path)
            }
        }
        #expect(documented.sorted() == API.routeTable.sorted())
    }
    #else
    @Test("a bridget built without the Server trait exits 69 from serve, saying how to build it")
    func withoutTheTrait() async throws {
        let command = try ServeCommand.parse([])
        await #expect(throws: ExitCode(69)) { try await command.run() }
        let watch = try WatchCommand.parse(["--once"])
        await #expect(throws: ExitCode(69)) { try await watch.run() }
    }
    #endif
}
