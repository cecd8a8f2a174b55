import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

extension StoreConformance {
    /// Checks `KeptAnswerStore`: an answer reads back exactly as kept with its version, keeping again replaces it and
    /// no other name's, an unknown name has none, and keeping changes no history version.
    public static func checkKeptAnswers(makeStore: () async throws -> any KeptAnswerStore & EventStore) async throws {
        let store = try await makeStore()
        #expect(try await store.keptAnswer(named: "pages") == nil)
        let before = try await store.historyVersion()
        // Every byte value, and enough of them to pass any small buffer.
        let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await store.keepAnswer(large, named: "pages", historyVersion: 7)
        try await store.keepAnswer(Data("{}".utf8), named: "quality", historyVersion: 7)
        #expect(try await store.keptAnswer(named: "pages") == KeptAnswer(historyVersion: 7, body: large))
        try await store.keepAnswer(Data("[1]".utf8), named: "pages", historyVersion: 9)
        #expect(try await store.keptAnswer(named: "pages") == KeptAnswer(historyVersion: 9, body: Data("[1]".utf8)))
        #expect(try await store.keptAnswer(named: "quality") == KeptAnswer(historyVersion: 7, body: Data("{}".utf8)))
        try await store.keepAnswer(Data(), named: "quality", historyVersion: 10)
        #expect(try await store.keptAnswer(named: "quality") == KeptAnswer(historyVersion: 10, body: Data()))
        #expect(try await store.keptAnswer(named: "Pages") == nil)
        #expect(try await store.historyVersion() == before)
    }
}
