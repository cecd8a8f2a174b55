import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetDTOs
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
    func scope(_ answers: some StoreAnswers) async throws -> HistoryScope {
        let context = answers.context
        var scope = HistoryScope()
        for name in bridge {
            let id = try await answers.bridge(named: name).id
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
            throw BridgetError(.inputBadRange, "--since \(since ?? "") is not before --until \(until ?? ""): the range is empty",
                hint: "--until is exclusive: --since 2026-10-01 --until 2026-10-02 is the whole of October 1")
        }
        return scope
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
