import ArgumentParser
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

/// `events --follow`: the changes as they are logged, a line each.
extension EventsCommand {
    /// Prints the changes after `sequence` as they are stored, a line each, until interrupted (exit 0).
    static func follow(_ answers: HistoryAnswers, after sequence: Int64, bridgeIDs: [String], format: OutputFormat)
        async throws
    {
        let clock = answers.context.clock
        let follower = answers.follower(poll: answers.context.configuration.stream.pollInterval)
        if format == .csv { Self.printLine(Self.csvHeader) }
        let pages = follower.pages(after: sequence, bridgeIDs: bridgeIDs.isEmpty ? nil : bridgeIDs)
        do {
            _ = try await cancelling(on: [SIGINT, SIGTERM], saying: { _ in "" }) {
                // The bridges' names, read again when an entry names one not known yet (a first import fills the
                // catalog).
                @Sendable func names() async throws -> [String: String] { try await answers.bridgeNames() }
                var catalog = try await names()
                for try await page in pages {
                    if format != .csv, page.contains(where: { $0.bridgeIDs.contains { catalog[$0] == nil } }) {
                        catalog = try await names()
                    }
                    for entry in page {
                        Self.printLine(try Self.line(entry, format: format, clock: clock, names: catalog))
                    }
                }
            }
        } catch is CancellationError {
            return
        } catch {
            // A read that failed because the store's file was deleted or replaced under the follower (a catalog read
            // meets SQLite's I/O error first) says so, not the error it met on the way.
            try await answers.checkReadiness()
            throw error
        }
    }

    /// `--follow`'s CSV columns: an opening's change fills the first nine; a bulk summary has its bridges
    /// (space-separated) in `bridge_id`, its first opening in `opened_at`, and `count`, `opened_through` and
    /// `history_version`.
    static let csvHeader = "sequence,recorded_at,kind,bridge_id,opened_at,closed_at,status,record_id,record_version,"
        + "count,opened_through,history_version"

    /// One entry as `--follow` prints it.
    static func line(_ entry: ChangeLogEntryDTO, format: OutputFormat, clock: LocalClock, names: [String: String]) throws
        -> String
    {
        func instant(_ date: Date?) -> String { date?.internetDateTime ?? "" }
        func csv(_ fields: [String]) -> String {
            fields.map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
                .joined(separator: ",")
        }
        if format == .json { return try AnswerJSON.line(ChangeOutput(entry, names: names, clock: clock)) }
        guard case .opening(let change) = entry else {
            guard case .bulk(let bulk) = entry else { return "" }
            if format == .csv {
                return csv([String(bulk.sequence), instant(bulk.recordedAt), BulkChangeDTO.kindName,
                            bulk.bridgeIDs.joined(separator: " "), instant(bulk.openedFrom), "", "", "", "",
                            String(bulk.total), instant(bulk.openedThrough), String(bulk.historyVersion)])
            }
            return bulkLine(bulk, clock: clock, names: names)
        }
        switch format {
        case .csv:
            return csv([String(change.sequence), instant(change.recordedAt), change.kind.rawValue, change.bridgeID,
                        instant(change.openedAt), instant(change.closedAt), change.status.rawValue, change.recordID ?? "",
                        change.recordVersion.map(String.init) ?? "", "1", "", ""])
        default:
            let name = names[change.bridgeID]
            var text = "#\(change.sequence)  \(clock.display(change.recordedAt))  \(change.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))  "
                + "\(name ?? change.bridgeID) (\(change.bridgeID))  opens \(clock.display(change.openedAt))"
            if let closed = change.closedAt { text += ", until \(clock.display(closed))" }
            if change.status == .planned { text += " (announced)" }
            if change.status == .live { text += " (seen live)" }
            if let record = change.recordID { text += "  record \(record)" + (change.recordVersion.map { " v\($0)" } ?? "") }
            return text.terminalSafe
        }
    }

    /// A bulk summary as a table line: what changed, where, opened when, and the command that reads it again.
    static func bulkLine(_ bulk: BulkChangeDTO, clock: LocalClock, names: [String: String]) -> String {
        let kinds = OpeningChangeKind.allCases.compactMap { kind in bulk.counts[kind].map { "\(kind.rawValue) \($0)" } }
        let bridges = bulk.bridgeIDs.map { names[$0] ?? $0 }
        let day = { (date: Date) in String(clock.reading(for: date).localText.prefix(10)) }
        let until = day(bulk.openedThrough.addingTimeInterval(86_400))
        let reread = "bridget events --since \(day(bulk.openedFrom)) --until \(until)"
            + (bulk.bridgeIDs.count <= 3 ? bulk.bridgeIDs.map { " --bridge \($0)" }.joined() : "")
        let text = "#\(bulk.sequence)  \(clock.display(bulk.recordedAt))  \("bulk".padding(toLength: 9, withPad: " ", startingAt: 0))  "
            + "\(bulk.total) older openings (\(kinds.joined(separator: ", "))) of \(bridges.joined(separator: ", ")), "
            + "opened \(clock.display(bulk.openedFrom)) to \(clock.display(bulk.openedThrough)); "
            + "history version \(bulk.historyVersion); read them again: \(reread)"
        return text.terminalSafe
    }

    /// A line on standard output, flushed: a reader at the other end of a pipe sees each change as it comes.
    static func printLine(_ line: String) {
        fflush(nil) // what print() buffered goes first
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
