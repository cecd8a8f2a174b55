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

#if Server
import Hummingbird

@Suite("the server's answer cache")
struct AnswerCacheTests {
    @Test("keeps answers by key, and drops the least recently used when over its budget")
    func leastRecentlyUsedGoes() {
        let cache = AnswerCache(budget: 4_000)
        let body = ByteBuffer(string: String(repeating: "x", count: 900))
        for key in ["a", "b", "c", "d"] { cache.keep(body, as: key) }
        #expect(cache.usage.entries == 4 && cache.answer("a") == body) // "a" is now the most recently used
        cache.keep(body, as: "e") // 4,505 bytes: over budget, the oldest quarter goes ("b")
        #expect(cache.answer("b") == nil && cache.answer("a") != nil && cache.answer("e") != nil)
        #expect(cache.usage.bytes <= 4_000)
        cache.keep(ByteBuffer(string: String(repeating: "y", count: 1_500)), as: "huge") // over a quarter: not kept
        #expect(cache.answer("huge") == nil)
    }
}
#endif
