import BridgetCore
import BridgetDTOs
import Foundation

/// A change of the log as the stream (`GET /v1/stream`), its JSON page and `bridget events --follow --format json`
/// give it: the entry's own fields (Docs/OUTPUT.md), and for an opening's change the bridge's name and the opening's
/// local times beside the UTC ones, as `/v1/events` gives an event, so a client needs no second call.
package struct ChangeOutput: Encodable, Sendable {
    package let entry: ChangeLogEntryDTO
    /// The opening's bridge's name; `nil` for a summary, or a bridge the catalog does not hold.
    package let bridgeName: String?
    private let clock: LocalClock

    package init(_ entry: ChangeLogEntryDTO, names: [String: String], clock: LocalClock) {
        self.entry = entry
        bridgeName = entry.opening.flatMap { names[$0.bridgeID] }
        self.clock = clock
    }

    private enum Keys: String, CodingKey { case bridgeName, openLocal, closeLocal }

    package func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        guard let change = entry.opening else { return }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(bridgeName ?? change.bridgeID, forKey: .bridgeName)
        try container.encode(clock.reading(for: change.openedAt).localText, forKey: .openLocal)
        try container.encodeIfPresent(change.closedAt.map { clock.reading(for: $0).localText }, forKey: .closeLocal)
    }
}

/// The names of the catalog's bridges, read again when a change names a bridge not known yet (a first sync fills the
/// catalog), for `ChangeOutput`.
package final class BridgeNames: Sendable {
    private let names = Locked<[String: String]>([:])
    private let read: @Sendable () async throws -> [BridgeInfoDTO]

    package init(_ read: @escaping @Sendable () async throws -> [BridgeInfoDTO]) { self.read = read }

    /// The names, holding every bridge `entries` name when the catalog does.
    package func names(for entries: [ChangeLogEntryDTO]) async -> [String: String] {
        let known = names.withLock { $0 }
        guard entries.contains(where: { $0.opening.map { known[$0.bridgeID] == nil } ?? false }),
              let bridges = try? await read()
        else { return known }
        let fresh = Dictionary(bridges.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        names.withLock { $0 = fresh }
        return fresh
    }
}
