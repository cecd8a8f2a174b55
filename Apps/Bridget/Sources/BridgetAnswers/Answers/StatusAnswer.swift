import BridgetContext
import BridgetCore
import BridgetPersistence
import Foundation

/// What the store and the refresher say of themselves: `/v1/status`'s answer.
package struct StatusAnswer: Encodable, Sendable {
    package let provider: String
    package let newestOpening: Date?
    package let historyVersion: Int64
    package let lastSync: SyncRunOutput?
    /// The refresher's schedule (`at 05:30 and 17:30 (America/Los_Angeles)`), or `nil` when this server does not
    /// refresh.
    package let refresh: String?
    /// When the next scheduled sync starts, or `nil`.
    package let nextRefresh: Date?

    private enum Keys: String, CodingKey { case provider, newestOpening, historyVersion, lastSync, refresh, nextRefresh }

    /// Every field, `null` when absent (a store with no opening or sync yet, a server that does not refresh).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(provider, forKey: .provider)
        try container.encode(newestOpening, forKey: .newestOpening)
        try container.encode(historyVersion, forKey: .historyVersion)
        try container.encode(lastSync, forKey: .lastSync)
        try container.encode(refresh, forKey: .refresh)
        try container.encode(nextRefresh, forKey: .nextRefresh)
    }
}

/// A sync run as `/v1/status` shows it.
package struct SyncRunOutput: Encodable, Sendable {
    package let id: Int64
    package let provider: String
    package let startedAt: Date
    package let finishedAt: Date?
    package let status: String
    package let fetched: Int
    package let inserted: Int
    package let updated: Int
    package let rejected: Int

    package init(_ run: SyncRunRecord) {
        id = run.id
        provider = run.provider
        startedAt = run.startedAt
        finishedAt = run.finishedAt
        status = run.status.rawValue
        fetched = run.fetched
        inserted = run.counts.inserted
        updated = run.counts.updated
        rejected = run.rejections.total
    }
}

extension StatusAnswer {
    /// The status now: the newest stored opening, the last sync run, the history version and the provider, with the
    /// refresher's schedule and next run when this process refreshes.
    package static func current(context: AppContext, store: any BridgeStore, schedule: RefreshSchedule?,
                                refresh: RefreshState?) async throws -> StatusAnswer {
        StatusAnswer(provider: context.configuration.provider.rawValue,
                     newestOpening: try await store.latestOpening(), historyVersion: try await store.historyVersion(),
                     lastSync: try await store.syncRuns(limit: 1).first.map(SyncRunOutput.init),
                     refresh: schedule?.description, nextRefresh: refresh?.next)
    }
}
