import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import Yams

/// The dated deviations an operator adds (`bridget rules add`) or imports, where `rules.storage` keeps them: a YAML
/// file beside the configuration (one user's), or the store (every host that shares it). The standing rules (the
/// curfews) and the federal holidays are not kept: they come with the city (`RuleCalendar.seattle`) and the
/// calendar.
package protocol SavedRules: Sendable {
    /// Where they are, for messages.
    var location: String { get }
    /// Every deviation kept, by start, and the size of the document that holds them.
    func document() async throws -> (deviations: [RuleDeviationDTO], bytes: Int)
    /// Adds each deviation, replacing one of the same id; returns how many were new.
    func add(_ deviations: [RuleDeviationDTO]) async throws -> Int
    /// Removes the deviation of that id; whether there was one.
    func remove(id: String) async throws -> Bool
}

extension SavedRules {
    /// Every deviation kept, by start.
    package func deviations() async throws -> [RuleDeviationDTO] { try await document().deviations }
}

/// The document a rules file holds, and what `rules export` writes:
///
/// ```yaml
/// deviations:
///   - id: beat-the-bridge-2027
///     bridges: ["4"]
///     from: "2027-05-16T08:00:00"     # the city's local time
///     until: "2027-05-16T10:30:00"
///     reason: Beat the Bridge run
///     source: 33 CFR 117.T1051 (Federal Register)
/// ```
package struct RuleDocument: Codable, Sendable, Equatable {
    package struct Entry: Codable, Sendable, Equatable {
        package var id: String
        package var bridges: [String]
        package var from: String
        package var until: String
        package var reason: String
        package var source: String?

        private enum CodingKeys: String, CodingKey, CaseIterable { case id, bridges, from, until, reason, source }

        package init(id: String, bridges: [String], from: String, until: String, reason: String, source: String?) {
            (self.id, self.bridges, self.from, self.until, self.reason, self.source) = (id, bridges, from, until, reason, source)
        }

        package init(from decoder: any Decoder) throws {
            try RuleDocument.refuseUnknownKeys(decoder, known: Set(CodingKeys.allCases.map(\.rawValue)),
                                               in: "a deviation")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            bridges = try container.decode([String].self, forKey: .bridges)
            from = try container.decode(String.self, forKey: .from)
            until = try container.decode(String.self, forKey: .until)
            reason = try container.decode(String.self, forKey: .reason)
            source = try container.decodeIfPresent(String.self, forKey: .source)
        }
    }

    package var deviations: [Entry]

    /// A key of a mapping, whatever it is: to find the ones the document does not know.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Refuses a key outside `known` (a misspelt `untill` would otherwise be a rule silently lost).
    fileprivate static func refuseUnknownKeys(_ decoder: any Decoder, known: Set<String>, in what: String) throws {
        let keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        guard let unknown = keys.filter({ !known.contains($0) }).sorted().first else { return }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: decoder.codingPath,
            debugDescription: "\(what) has the unknown key '\(unknown.prefix(40))' (known: "
                + known.sorted().joined(separator: ", ") + ")"))
    }

    private enum CodingKeys: String, CodingKey { case deviations }

    package init(from decoder: any Decoder) throws {
        try Self.refuseUnknownKeys(decoder, known: ["deviations"], in: "the document")
        deviations = try decoder.container(keyedBy: CodingKeys.self).decode([Entry].self, forKey: .deviations)
    }

    package init(_ deviations: [RuleDeviationDTO]) {
        self.deviations = deviations.map {
            Entry(id: $0.id, bridges: $0.bridgeIDs, from: $0.from, until: $0.until, reason: $0.reason, source: $0.source)
        }
    }

    /// The deviations of a YAML text, each checked (`RuleCheck`) against `catalog`; `origin` names the text in
    /// errors.
    package static func deviations(fromYAML text: String, catalog: BridgeCatalog, origin: String,
                                   clock: LocalClock = .seattle) throws -> [RuleDeviationDTO]
    {
        guard text.utf8.count <= RuleCheck.maximumReadBytes else {
            throw BridgetError(.dataRulesFile, "\(origin) is larger than \(RuleCheck.maximumReadBytes) bytes",
                                    hint: "a rules file holds dated deviations only")
        }
        let document: RuleDocument
        do {
            document = text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                ? RuleDocument([]) : try YAMLDecoder().decode(RuleDocument.self, from: text)
        } catch {
            throw BridgetError(.dataRulesFile, "\(origin) is not a rules document: \(Self.describe(error))",
                                    hint: "see `bridget rules --help` for its shape")
        }
        var seen = Set<String>()
        return try document.deviations.enumerated().map { index, entry in
            let deviation = try RuleCheck.deviation(
                id: entry.id, bridges: entry.bridges, from: entry.from, until: entry.until, reason: entry.reason,
                source: entry.source, catalog: catalog, origin: "\(origin), deviation \(index + 1)", clock: clock)
            guard seen.insert(deviation.id).inserted else {
                throw BridgetError(.dataRulesFile, "\(origin) holds the id \(deviation.id) twice")
            }
            return deviation
        }
    }

    /// The YAML text of `deviations`, written by hand: a stable, readable form, in time linear in the deviations
    /// (Yams' encoder copies its node list per item). Text is in double-quoted scalars, which YAML reads as JSON
    /// strings; an id (letters, digits and dashes) is plain when it starts with a letter and reads as no other type.
    package static func yaml(_ deviations: [RuleDeviationDTO]) throws -> String {
        let encoder = JSONEncoder()
        func quoted(_ text: String) throws -> String { String(decoding: try encoder.encode(text), as: UTF8.self) }
        let keywords: Set<String> = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"]
        var lines = ["# Dated deviations Bridget's forecasts know (bridget rules add|remove|import).",
                     deviations.isEmpty ? "deviations: []" : "deviations:"]
        lines.reserveCapacity(2 + 7 * deviations.count)
        for deviation in deviations {
            let plainID = deviation.id.first?.isLetter == true && !keywords.contains(deviation.id)
            lines.append("  - id: " + (plainID ? deviation.id : try quoted(deviation.id)))
            lines.append("    bridges: [" + (try deviation.bridgeIDs.map(quoted).joined(separator: ", ")) + "]")
            lines.append("    from: " + (try quoted(deviation.from)))
            lines.append("    until: " + (try quoted(deviation.until)))
            lines.append("    reason: " + (try quoted(deviation.reason)))
            if let source = deviation.source { lines.append("    source: " + (try quoted(source))) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .keyNotFound(let key, let context):
                return "\(key.stringValue) is missing at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return context.debugDescription
            @unknown default: break
            }
        }
        return "\(error)"
    }
}

/// What a deviation must be to be kept: an id of letters, digits and dashes; known bridges; a start before its end,
/// both readable local times, at most a year apart; a reason of one line.
package enum RuleCheck {
    /// The most a change may leave the rules document (as written): a change past it is refused whole, and
    /// forecasts leave a document over it aside (with a warning) for the standing rules.
    package static let maximumDocumentBytes = 1_000_000
    /// The most `rules list`, `remove` and `export` read, so that a document over `maximumDocumentBytes` (an older
    /// Bridget's, or a hand edit) can still be seen and made smaller.
    package static let maximumReadBytes = 16_000_000

    /// Refuses a change that would leave the document over `maximumDocumentBytes`, unless it removes deviations (a
    /// removal is how a document over the limit gets back under it).
    static func checkSize(of text: String, removing: Bool, where origin: String) throws {
        let bytes = text.utf8.count
        guard bytes > maximumDocumentBytes, !removing else { return }
        throw BridgetError(.dataRulesFile, """
            \(origin) would be \(bytes) bytes as written, over the limit of \(maximumDocumentBytes): nothing was \
            changed
            """, hint: "keep fewer deviations (bridget rules remove ID), or import them in a smaller file")
    }
    static let maximumSpanSeconds: Int64 = 366 * 86_400

    package static func deviation(id: String, bridges: [String], from: String, until: String, reason: String,
                                  source: String?, catalog: BridgeCatalog, origin: String,
                                  clock: LocalClock = .seattle) throws -> RuleDeviationDTO
    {
        func invalid(_ message: String, parameter: String? = nil) -> BridgetError {
            BridgetError(.inputInvalidRule, "\(origin): \(message)", parameter: parameter)
        }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789-")
        guard (1...64).contains(id.count), id.unicodeScalars.allSatisfy(allowed.contains) else {
            throw invalid("the id \"\(id.prefix(64))\" must be 1–64 lower-case letters, digits or dashes", parameter: "id")
        }
        guard !bridges.isEmpty else { throw invalid("name at least one bridge", parameter: "bridge") }
        let ids = try bridges.map { name -> String in
            guard let bridge = catalog.bridge(id: name) ?? catalog.bridges.first(where: {
                $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw invalid("no bridge \"\(name.prefix(40))\" (known: \(catalog.bridges.map(\.name).joined(separator: ", ")))",
                              parameter: "bridge")
            }
            return bridge.id
        }
        let start = try reading(from, parameter: "from", clock: clock, origin: origin)
        let end = try reading(until, parameter: "until", clock: clock, origin: origin)
        guard start < end else { throw invalid("until must be after from", parameter: "until") }
        guard end.wallClockSeconds - start.wallClockSeconds <= maximumSpanSeconds else {
            throw invalid("a deviation lasts a year at most", parameter: "until")
        }
        let trimmed = reason.trimmingCharacters(in: .whitespaces)
        guard (1...200).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid("the reason is one line of 1–200 characters", parameter: "reason")
        }
        if let source, source.count > 300 || source.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw invalid("the source is one line of at most 300 characters", parameter: "source")
        }
        let order = Dictionary(catalog.bridges.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        return RuleDeviationDTO(id: id, bridgeIDs: Array(Set(ids)).sorted { (order[$0] ?? 0, $0) < (order[$1] ?? 0, $1) },
                                from: start.localText,
                                until: end.localText, reason: trimmed, source: source)
    }

    /// A deviation's start or end, read as `--at` reads a time (`TimeGrammar`, "Times you type" in OUTPUT.md): a
    /// date, a local time with or without seconds, with the zone abbreviation tables print (`PDT`, `PST`) to say
    /// which of a repeated hour's readings is meant, or an ISO 8601 instant; the years 1900 to 2999. A time the
    /// clocks skip moves forward by the gap, as `--at`'s does, so the deviation closes the minutes that exist. The
    /// forms that depend on when they are read (`17:40`, `2h`, `now`) are refused: a saved rule means one time.
    static func reading(_ text: String, parameter: String, clock: LocalClock, origin: String) throws -> FloatingTimestamp {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let absolute = trimmed.count >= 10 && trimmed.prefix(10).enumerated().allSatisfy { index, character in
            index == 4 || index == 7 ? character == "-" : character.isASCII && character.isNumber
        }
        guard absolute else {
            throw BridgetError(.inputInvalidRule, """
                \(origin): from and until are dates or local times (2027-05-16 08:00, optionally with PDT or PST, \
                or ISO 8601), not '\(trimmed.prefix(40))': a saved rule names one time, not a time of day or a span
                """, parameter: parameter)
        }
        do {
            // Absolute forms resolve the same whatever `now` is.
            return try TimeGrammar(clock: clock, now: Date(timeIntervalSince1970: 0))
                .resolve(trimmed, option: parameter, direction: .ahead).reading
        } catch let error as BridgetError {
            throw BridgetError(.inputInvalidRule, "\(origin): \(error.message)", hint: error.hint, parameter: parameter)
        }
    }
}

/// Dated deviations in a YAML file (`rules.path`). A change (read, then write) holds an exclusive lock on
/// `rules.yaml.lock` beside it and replaces the file whole, so two processes adding at once both keep theirs and a
/// crash leaves the old or the new file.
package final class RuleFile: SavedRules {
    package let path: String
    private let catalog: BridgeCatalog
    private let clock: LocalClock
    private let lock = Locked(())

    package init(path: String, catalog: BridgeCatalog, clock: LocalClock = .seattle) {
        self.path = path
        self.catalog = catalog
        self.clock = clock
    }

    package var location: String { path }

    package func document() async throws -> (deviations: [RuleDeviationDTO], bytes: Int) {
        try lock.withLock { _ in try readDocument() }
    }

    package func add(_ deviations: [RuleDeviationDTO]) async throws -> Int {
        try changing { kept in
            let known = Set(kept.map(\.id))
            let incoming = Set(deviations.map(\.id))
            return (kept.filter { !incoming.contains($0.id) } + deviations, deviations.filter { !known.contains($0.id) }.count)
        }
    }

    package func remove(id: String) async throws -> Bool {
        try changing { kept in (kept.filter { $0.id != id }, kept.contains { $0.id == id }) }
    }

    private func read() throws -> [RuleDeviationDTO] { try readDocument().deviations }

    private func readDocument() throws -> (deviations: [RuleDeviationDTO], bytes: Int) {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw BridgetError(.dataRulesRead, "cannot read the rules file \(path)")
            }
            return ([], 0)
        }
        return (try RuleDocument.deviations(fromYAML: String(decoding: data, as: UTF8.self), catalog: catalog,
                                            origin: "the rules file \(path)", clock: clock), data.count)
    }

    private func changing<T: Sendable>(_ change: ([RuleDeviationDTO]) throws -> ([RuleDeviationDTO], T)) throws -> T {
        try lock.withLock { _ in
            do {
                let target = try OwnFile.target(of: path)
                let folder = URL(fileURLWithPath: target).deletingLastPathComponent()
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                return try SystemCall.withExclusiveLock(on: target + ".lock") {
                    let previous = try read()
                    let (kept, result) = try change(previous)
                    let text = try RuleDocument.yaml(kept.sorted { ($0.from, $0.id) < ($1.from, $1.id) })
                    try RuleCheck.checkSize(of: text, removing: kept.count < previous.count, where: "the rules file \(path)")
                    try OwnFile.replace(path, with: Data(text.utf8), makingFolder: true)
                    return result
                }
            } catch let error as BridgetError {
                throw error
            } catch {
                throw BridgetError(.dataRulesWrite, "cannot write the rules file \(path): \(error.localizedDescription)",
                                        hint: "rules.path in the config chooses where rules are kept")
            }
        }
    }
}

/// Dated deviations in the store, as one document every host reads (`KeptAnswerStore`, name `rules.deviations`). A
/// change holds the store's sync lock, so two hosts changing them at once cannot lose one's change; while a sync
/// holds it, a change waits for nothing and says to try again.
package struct StoreRules: SavedRules {
    package static let name = "rules.deviations"
    package let store: any BridgeStore
    package let location: String
    private let catalog: BridgeCatalog
    private let clock: LocalClock

    package init(store: any BridgeStore, location: String, catalog: BridgeCatalog, clock: LocalClock = .seattle) {
        self.store = store
        self.location = location
        self.catalog = catalog
        self.clock = clock
    }

    package func document() async throws -> (deviations: [RuleDeviationDTO], bytes: Int) {
        guard let kept = try await store.keptAnswer(named: Self.name) else { return ([], 0) }
        return (try RuleDocument.deviations(fromYAML: String(decoding: kept.body, as: UTF8.self), catalog: catalog,
                                            origin: "the rules kept in \(location)", clock: clock), kept.body.count)
    }

    package func add(_ deviations: [RuleDeviationDTO]) async throws -> Int {
        try await changing { kept in
            let known = Set(kept.map(\.id))
            let incoming = Set(deviations.map(\.id))
            return (kept.filter { !incoming.contains($0.id) } + deviations, deviations.filter { !known.contains($0.id) }.count)
        }
    }

    package func remove(id: String) async throws -> Bool {
        try await changing { kept in (kept.filter { $0.id != id }, kept.contains { $0.id == id }) }
    }

    private func changing<T: Sendable>(_ change: @escaping @Sendable ([RuleDeviationDTO]) throws -> ([RuleDeviationDTO], T))
        async throws -> T
    {
        let store = self.store
        let location = self.location
        return try await store.withSyncLock(holder: BridgetAssembly.processIdentity + " (rules)") {
            let previous = try await deviations()
            let (kept, result) = try change(previous)
            let text = try RuleDocument.yaml(kept.sorted { ($0.from, $0.id) < ($1.from, $1.id) })
            try RuleCheck.checkSize(of: text, removing: kept.count < previous.count, where: "the rules kept in \(location)")
            try await store.keepAnswer(Data(text.utf8), named: Self.name, historyVersion: 0)
            return result
        }
    }
}

extension AppContext {
    /// The dated deviations as `rules.storage` places them.
    package func savedRules(_ store: any BridgeStore, catalog: BridgeCatalog) -> any SavedRules {
        guard configuration.rulesInStore else {
            return RuleFile(path: configuration.rulesPath, catalog: catalog, clock: clock)
        }
        return StoreRules(store: store, location: "the store at \(assembly.storeDescription)", catalog: catalog,
                          clock: clock)
    }

    /// The rules forecasts know: the city's standing rules (the Ship Canal's curfews for Seattle's sources, none for
    /// another city's), the saved deviations, and for the sample provider the sample calendar's.
    package func ruleCalendar(store: any BridgeStore, catalog: BridgeCatalog) async throws -> RuleCalendar {
        let rules = savedRules(store, catalog: catalog)
        var (saved, bytes) = try await rules.document()
        // A document over the limit a change may leave (an older Bridget's, a hand edit) never stops a forecast.
        if bytes > RuleCheck.maximumDocumentBytes {
            note("the saved rules at \(rules.location) are \(bytes) bytes, over the limit of "
                 + "\(RuleCheck.maximumDocumentBytes): forecasts use the standing rules only until `bridget rules "
                 + "remove` brings them under it")
            saved = []
        }
        let ids = Set(saved.map(\.id))
        let base = assembly.analysisRules
        return base.with(deviations: saved + base.deviations.filter { !ids.contains($0.id) })
    }
}
