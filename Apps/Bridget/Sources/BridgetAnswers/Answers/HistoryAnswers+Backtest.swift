import BridgetAnalysis
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The days a backtest trains and tests on: trained on openings before `train`, tested from it to `test` (exclusive;
/// the history's end when `nil`). `defaulted`: `train` was chosen (the last quarter of the history), not given.
package struct BacktestPlan: Sendable, Equatable {
    package let train: LocalDay
    package let test: LocalDay?
    package let defaulted: Bool
}

extension HistoryAnswers {
    /// The local days of the first (from `from` on) and the last stored opening that happened; `nil` when none did.
    package func storedDays(from: Date? = nil) async throws -> (first: Int, last: Int)? {
        let clock = context.clock
        let first = try await store.events(matching: EventQuery(openedFrom: from, limit: 1, happened: true)).first
        let last = try await store.events(matching: EventQuery(limit: 1, newestFirst: true, happened: true)).first
        guard let first, let last else { return nil }
        return (LocalDay(containing: first.openedAt, time: clock).number, LocalDay(containing: last.openedAt, time: clock).number)
    }

    /// The plan of `bridget backtest` and of the quality page: trained until `trainUntil` when given (it must leave
    /// some history to test), else tested on the last quarter of the history up to `testUntil` (92 days at most,
    /// `Backtester.defaultTrainUntil`); the history counted from `from`.
    package func backtestPlan(trainUntil: LocalDay?, testUntil: LocalDay?, from: Date? = nil) async throws -> BacktestPlan {
        let days = try await storedDays(from: from)
        let firstDay = days?.first ?? 0
        let lastStored = days?.last ?? firstDay
        if let trainUntil {
            guard trainUntil.number <= lastStored else {
                throw BridgetError(.inputBadRange, "--train-until \(trainUntil) is after the stored history "
                                   + "(\(LocalDay(number: firstDay)) to \(LocalDay(number: lastStored))): nothing is left to test",
                                   hint: "choose a day within the history, or leave --train-until out to test on its last quarter")
            }
            return BacktestPlan(train: trainUntil, test: testUntil, defaulted: false)
        }
        let lastDay = testUntil.map { $0.number - 1 } ?? lastStored
        return BacktestPlan(train: LocalDay(number: Backtester.defaultTrainUntil(firstDay: firstDay, lastDay: lastDay)),
                            test: testUntil, defaulted: true)
    }

    /// The backtest of `plan` over `scope`'s bridges.
    package func backtest(_ plan: BacktestPlan, in scope: HistoryScope) async throws -> BacktestDTO {
        try await context.assembly.makeProcessor(store: store)
            .backtest(trainUntil: plan.train.number, testUntil: plan.test?.number, in: scope)
    }
}
