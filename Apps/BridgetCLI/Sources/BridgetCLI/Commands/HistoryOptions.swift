import ArgumentParser
import BridgetAnalysis
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The filters of every command that reads the history: which bridges, and a half-open time range.
///
/// `--since` is inclusive and `--until` exclusive, for every form: `--until 2026-10-01` ends at that day's local
/// midnight, so the range leaves that day out, and `--since 2026-09-01 --until 2026-10-01` is September exactly.
struct HistoryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Only this bridge, by id or name (3, Fremont); repeat for several.", valueName: "bridge"))
    var bridge: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "Only openings at or after this time: a date, a local time, 17:40, now, 30d (ago) or ISO 8601.",
        valueName: "time"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp(
        "Only openings before this time (exclusive: --until 2026-10-01 leaves that day out).", valueName: "time"))
    var until: String?

    init() {}

    /// Filters given in code (a command that takes `--bridge` its own way).
    init(bridge: [String], since: String?, until: String?) {
        self.bridge = bridge
        self.since = since
        self.until = until
    }

    /// The filters resolved against the store's catalog and the clock; notes (adjusted local times) go to standard
    /// error.
    func scope(_ context: CommandContext, store: any BridgeCatalogStore) async throws -> HistoryScope {
        var scope = HistoryScope()
        for name in bridge {
            let id = try await context.bridge(named: name, in: store).id
            if !scope.bridgeIDs.contains(id) { scope.bridgeIDs.append(id) }
        }
        let grammar = context.timeGrammar
        if let since {
            let resolved = try grammar.resolve(since, option: "--since", direction: .back)
            if let note = resolved.note { Terminal.note("--since: " + note) }
            scope.from = resolved.instant
        }
        if let until {
            let resolved = try grammar.resolve(until, option: "--until", direction: .back)
            if let note = resolved.note { Terminal.note("--until: " + note) }
            scope.before = resolved.instant
        }
        if let from = scope.from, let before = scope.before, from >= before {
            throw BridgetError.validation(
                "bad-range", "--since \(since ?? "") is not before --until \(until ?? ""): the range is empty",
                hint: "--until is exclusive: --since 2026-10-01 --until 2026-10-02 is the whole of October 1")
        }
        return scope
    }
}

/// The store queries of a scope (the scope itself is Analysis's: the same filters for events and answers).
extension HistoryScope {
    /// Store queries for the scope: one per bridge (or one for all).
    func queries(limit: Int? = nil, newestFirst: Bool = false) -> [EventQuery] {
        let ids: [String?] = bridgeIDs.isEmpty ? [nil] : bridgeIDs
        return ids.map { EventQuery(bridgeID: $0, openedFrom: from, openedBefore: before, limit: limit,
                                    newestFirst: newestFirst) }
    }

    /// The events in scope, merged across bridges in time order, at most `limit`.
    func events(in store: any EventStore, limit: Int?, newestFirst: Bool) async throws -> [BridgeEventDTO] {
        var merged: [BridgeEventDTO] = []
        for query in queries(limit: limit, newestFirst: newestFirst) {
            merged += try await store.events(matching: query)
        }
        guard bridgeIDs.count > 1 else { return merged }
        merged.sort { newestFirst ? ($0.openedAt, $0.bridgeID) > ($1.openedAt, $1.bridgeID)
                                  : ($0.openedAt, $0.bridgeID) < ($1.openedAt, $1.bridgeID) }
        if let limit { merged = Array(merged.prefix(limit)) }
        return merged
    }
}

extension CommandContext {
    /// Fails with "the store is empty: run `bridget sync`" (exit 66, no input) when the store holds no opening, so
    /// a command never answers "no bridge 3" or "choose a later date" about a store that has nothing yet.
    func requireHistory(_ store: any EventStore, for command: String) async throws {
        guard try await store.eventCount(bridgeID: nil) == 0 else { return }
        throw BridgetError.data(
            "store-empty", "the store at \(assembly.storeDescription) holds no openings yet, so \(command) has "
                + "nothing to go on",
            hint: "run `bridget sync` (or `bridget import FILE`) first", exitCode: 66)
    }
}

/// For commands that answer about one bridge: exactly one `--bridge`, never a silent choice among several.
func requireOneBridge(_ given: [String], command: String) throws {
    guard given.count == 1 else {
        throw ValidationError(given.isEmpty ? "\(command) needs --bridge (an id or a name, e.g. 3 or Fremont)"
            : "\(command) answers for one bridge at a time; --bridge was given \(given.count) times "
                + "(\(given.joined(separator: ", ")))")
    }
}
