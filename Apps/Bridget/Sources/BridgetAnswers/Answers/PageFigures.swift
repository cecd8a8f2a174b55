import BridgetAnalysis
import BridgetContext
import BridgetDTOs
import BridgetPersistence
import Foundation

/// What the pages need of the whole history, computed in one read of it and kept in the store with the history
/// version it came from (`KeptAnswerStore`): a page renders from these few figures, not from the history, until
/// the history changes. The server's refresher keeps them after each sync that changed it.
package struct PageFigures: Codable, Sendable {
    /// The kept answer's name.
    package static let name = "pages.figures"
    /// Every bridge of the catalog with its stored rows and its last opening (the overview's rows).
    package var activity: [BridgeActivity]
    /// Every bridge's tally: a bridge page's statistics, heatmap, months and durations.
    package var tallies: Tallies
}

/// The quality page's backtest, or why there is none.
package enum QualityBacktest: Codable, Sendable {
    /// No observed opening is stored.
    case noOpenings
    /// Less than a week of history: too little to test on.
    case tooShort
    /// Trained on the history's first three quarters, tested on the last.
    case tested(BacktestDTO)
}

/// The figures the pages read, computed once per history version and kept in the store (`KeptAnswerStore`) for
/// every reader on every host that shares it.
package struct KeptFigures: Sendable {
    package let context: AppContext
    package let store: any BridgeStore

    package init(context: AppContext, store: any BridgeStore) {
        self.context = context
        self.store = store
    }

    /// The answer kept under `name` when it was computed at the history's current version; otherwise `compute()`'s,
    /// kept for the next reader. A store that cannot keep it (read-only, or busy) costs the next reader the same
    /// work again, never a wrong page.
    private func kept<T: Codable & Sendable>(_ name: String, _ compute: () async throws -> T) async throws -> T {
        let version = try await store.historyVersion()
        if let kept = try await store.keptAnswer(named: name), kept.historyVersion == version,
           let value = try? JSONDecoder().decode(T.self, from: kept.body) {
            return value
        }
        let value = try await compute()
        if !store.isReadOnly {
            try? await store.keepAnswer(try JSONEncoder().encode(value), named: name, historyVersion: version)
        }
        return value
    }

    /// The pages' figures of the history as it is now.
    package func figures() async throws -> PageFigures {
        try await kept(PageFigures.name) {
            PageFigures(activity: try await store.bridgeActivity(),
                        tallies: try await context.assembly.makeProcessor(store: store).tallies(in: .everything))
        }
    }

    /// Computes and keeps what the pages need of the history as it is now (the figures, provenance and the quality
    /// page's backtest, the one of minutes last), so the next pages render from them.
    package func keepAll() async throws {
        _ = try await figures()
        _ = try await provenance(now: context.assembly.now())
        _ = try await qualityBacktest()
    }

    /// Where the stored openings come from (`ProvenanceAnswer`), as of the history's current version: counting
    /// every stored event and reading the change log's newest 50,000 changes is too much for every page view. The
    /// ages behind "seen only live" are those of the moment it was computed (a live feed changes the version with
    /// each opening it sees).
    package func provenance(now: Date) async throws -> ProvenanceAnswer {
        try await kept("pages.provenance") { try await ProvenanceAnswer.current(store: store, now: now) }
    }

    /// The quality page's backtest of the history as it is now: tested on its last quarter (by local days), 92 days
    /// at most, trained on what comes before (`Backtester.defaultTrainUntil`).
    package func qualityBacktest() async throws -> QualityBacktest {
        try await kept("pages.quality") {
            let answers = HistoryAnswers(context: context, store: store)
            guard let days = try await answers.storedDays() else { return .noOpenings }
            guard days.last - days.first >= 7 else { return .tooShort }
            let plan = try await answers.backtestPlan(trainUntil: nil, testUntil: nil)
            return .tested(try await answers.backtest(plan, in: .everything))
        }
    }
}
