import Foundation

/// An answer derived from the history (a page's figures, a backtest) as it was kept: its body and the history
/// version it was computed from.
public struct KeptAnswer: Sendable, Equatable {
    /// The `historyVersion()` the answer was computed at: it answers for that version only.
    public let historyVersion: Int64
    /// The answer, encoded by whoever kept it.
    public let body: Data

    /// Creates a kept answer.
    public init(historyVersion: Int64, body: Data) {
        self.historyVersion = historyVersion
        self.body = body
    }
}

/// Where answers derived from the history are kept with the history version they were computed from, so a reader at
/// that version (on any host sharing the store) reads them instead of computing them again from the history.
///
/// An implementation must guarantee: `keepAnswer` replaces the answer of that name (body and version) in one write,
/// leaving every other name's; `keptAnswer(named:)` returns the body and version last kept under the name exactly,
/// or `nil` when none was. Kept answers are not history: keeping one changes no `historyVersion()`.
public protocol KeptAnswerStore: Sendable {
    /// Keeps `body` as the answer named `name`, computed at `historyVersion`, replacing any kept before.
    func keepAnswer(_ body: Data, named name: String, historyVersion: Int64) async throws
    /// The answer last kept under `name`, or `nil`.
    func keptAnswer(named name: String) async throws -> KeptAnswer?
}
