import BridgetAnalysis
import BridgetAnswers
import BridgetCaching
import BridgetCharts
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

extension Site {
    // MARK: The quality page

    /// How far to trust a forecast: the backtest of `bridget backtest` (trained on the history's first three
    /// quarters, tested on the last), as a reliability diagram and each bridge's skill.
    package func qualityPage() async throws -> String {
        let frame = frame("Forecast quality – Bridget", top: true)
        let provenance = try await KeptFigures(context: context, store: store).provenance(now: now)
        func page(message: String?, tested: QualityPageView.Tested? = nil) -> String {
            PageTemplates.render(QualityPageView(frame: frame, homeHref: homeHref(top: true), message: message,
                                                 tested: tested, provenance: provenance.sentence), as: "quality")
        }
        let result: BacktestDTO
        switch try await KeptFigures(context: context, store: store).qualityBacktest() {
        case .noOpenings: return page(message: "No openings are stored yet, so no forecast can be tested.")
        case .tooShort: return page(message: "Less than a week of history is stored: too little to test on.")
        case .tested(let backtest): result = backtest
        }
        guard let window = result.windows.first else { return page(message: "Nothing to test.") }
        let bins = window.reliability.compactMap { bin in
            bin.meanPredicted.flatMap { predicted in bin.observed.map { (predicted: predicted, observed: $0, count: bin.count) } }
        }
        return page(message: nil, tested: QualityPageView.Tested(
            testFrom: result.testFrom, testUntil: result.testUntil, testOpenings: result.testOpenings,
            minutes: window.minutes,
            reliability: ReliabilityChart(id: "reliability",
                                          title: "Predicted against observed (\(window.minutes)-minute windows)", bins: bins),
            rows: ([nil] + window.bridges.map(\.bridgeID)).compactMap { bridgeID -> QualityPageView.Row? in
                guard let all = window.comparison(bridgeID: bridgeID) else { return nil }
                let after = window.comparison(bridgeID: bridgeID, subset: "after-neighbour")
                return QualityPageView.Row(
                    bridge: all.bridgeName ?? "All bridges", points: all.points,
                    forecast: BacktestReading.skill(all.nowcast), timeOfWeek: BacktestReading.skill(all.slot),
                    beats: all.nowcast.isAboveZero ? "yes" : (all.nowcast.isBelowZero ? "worse" : "not shown"),
                    afterNeighbour: after.flatMap { $0.points > 0 ? BacktestReading.skill($0.nowcast) : nil } ?? "–",
                    afterReliability: after?.reliabilityError.map { String(format: "%.0f points", ($0 * 100).rounded(.up)) }
                        ?? "–")
            },
            verdict: BacktestReading.verdict(result)))
    }

    // MARK: An error

    /// A page saying what went wrong, for a person (the server's pages answer errors with it).
    package func errorPage(title: String, detail: String) -> String {
        PageTemplates.render(ErrorPageView(frame: frame("\(title) – Bridget", top: true), homeHref: homeHref(top: true),
                                           title: title, detail: detail), as: "error")
    }
}
