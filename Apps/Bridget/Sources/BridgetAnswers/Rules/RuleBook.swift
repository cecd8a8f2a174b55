import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The rule deviations as `bridget rules` keeps them: where they live (the rules file, or the store), the catalog they
/// name bridges from, and the calendar they make with the standing rules.
package struct RuleBook: Sendable {
    package let context: AppContext
    package let store: any BridgeStore
    package let catalog: BridgeCatalog

    /// The store to keep rules in (writable when they live there, and `writing`) and the catalog they name.
    package static func open(_ context: AppContext, writing: Bool) async throws -> RuleBook {
        let store = try await context.assembly.makeStore(forReading: !(writing && context.configuration.rulesInStore))
        return RuleBook(context: context, store: store, catalog: try await context.catalog(in: store))
    }

    /// The saved deviations, where `rules.storage` keeps them.
    package var saved: any SavedRules { context.savedRules(store, catalog: catalog) }

    /// The standing rules with the saved deviations.
    package func calendar() async throws -> RuleCalendar { try await context.ruleCalendar(store: store, catalog: catalog) }

    /// The book of the store's current history (the models the rules' lines compare with).
    package func book() async throws -> ForecastBook { try await HistoryBooks(context: context, store: store).book() }
}
