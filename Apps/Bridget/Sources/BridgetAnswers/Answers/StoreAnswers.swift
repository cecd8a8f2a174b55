import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// An answer type over the configured store. A front end asks for one by its context (`reading`, `opening`) and asks
/// it questions: it never opens or reads the store itself, so a command parses and prints, and the server asks the
/// same types.
package protocol StoreAnswers: Sendable {
    var context: AppContext { get }
    var store: any BridgeStore { get }
    init(context: AppContext, store: any BridgeStore)
}

extension StoreAnswers {
    /// The answers over the configured store opened for reading (a read-only copy is read as it is).
    package static func reading(_ context: AppContext) async throws -> Self {
        Self(context: context, store: try await context.openStoreForReading())
    }

    /// The answers over the configured store opened as the assembly makes it: for writing, or `forReading` without
    /// the writes a first open would make.
    package static func opening(_ context: AppContext, forReading: Bool = false) async throws -> Self {
        Self(context: context, store: try await context.assembly.makeStore(forReading: forReading))
    }

    /// The bridge a user names (an id, or a name as the catalog knows it).
    package func bridge(named text: String) async throws -> BridgeInfoDTO {
        try await context.bridge(named: text, in: store)
    }

    /// Refuses a question the stored history cannot answer yet (an empty store), saying how to fill it.
    package func requireHistory(for question: String) async throws {
        try await context.requireHistory(store, for: question)
    }
}

extension HistoryAnswers: StoreAnswers {}
extension Forecasts: StoreAnswers {}
extension RouteAnswers: StoreAnswers {}
