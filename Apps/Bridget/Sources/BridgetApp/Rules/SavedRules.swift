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
    }

    package var deviations: [Entry]

    package init(_ deviations: [RuleDeviationDTO]) {
        self.deviations = deviations.map {
            Entry(id: $0.id, bridges: $0.bridgeIDs, from: $0.from, until: $0.until, reason: $0.reason, source: $0.source)
        }
    }

    /// The deviations of a YAML text, each checked (`RuleCheck`) against `catalog`; `origin` names the text in
    /// errors.
    package static func deviations(fromYAML text: String, catalog: BridgeCatalog, origin: String) throws
        -> [RuleDeviationDTO]
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
                source: entry.source, catalog: catalog, origin: "\(origin), deviation \(index + 1)")
            guard seen.insert(deviation.id).inserted else {
                throw BridgetError(.dataRulesFile, "\(origin) holds the id \(deviation.id) twice")
            }
            return deviation
        }
    }

    /// The YAML text of `deviations`.
    package static func yaml(_ deviations: [RuleDeviationDTO]) throws -> String {
        "# Dated deviations Bridget's forecasts know (bridget rules add|remove|import).\n"
            + (try YAMLEncoder().encode(RuleDocument(deviations)))
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

    /// Refuses a change that would leave the document over `maximumDocumentBytes`, unless it makes an oversized
    /// document smaller (a removal on the way back under it).
    static func checkSize(of text: String, before: Int, where origin: String) throws {
        let bytes = text.utf8.count
        guard bytes > maximumDocumentBytes, bytes >= before else { return }
        throw BridgetError(.dataRulesFile, """
            \(origin) would be \(bytes) bytes as written, over the limit of \(maximumDocumentBytes): nothing was \
            changed
            """, hint: "keep fewer deviations (bridget rules remove ID), or import them in a smaller file")
    }
    static let maximumSpanSeconds: Int64 = 366 * 86_400

    package static func deviation(id: String, bridges: [String], from: String, until: String, reason: String,
                                  source: String?, catalog: BridgeCatalog, origin: String) throws -> RuleDeviationDTO
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
        guard let start = reading(from), let end = reading(until) else {
            throw invalid("from and until are local times, YYYY-MM-DDTHH:MM[:SS] (got \"\(from.prefix(30))\", "
                          + "\"\(until.prefix(30))\")", parameter: "from")
        }
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

    /// A local time `YYYY-MM-DDTHH:MM` or with seconds (a space for the T too).
    static func reading(_ text: String) -> FloatingTimestamp? {
        let normal = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "T")
        switch normal.count {
        case 16: return FloatingTimestamp(normal + ":00.000")
        case 19: return FloatingTimestamp(normal + ".000")
        default: return nil
        }
    }
}

/// Dated deviations in a YAML file (`rules.path`). A change (read, then write) holds an exclusive lock on
/// `rules.yaml.lock` beside it and replaces the file whole, so two processes adding at once both keep theirs and a
/// crash leaves the old or the new file.
package final class RuleFile: SavedRules {
    package let path: String
    private let catalog: BridgeCatalog
    private let lock = Locked(())

    package init(path: String, catalog: BridgeCatalog) {
        self.path = path
        self.catalog = catalog
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
                                            origin: "the rules file \(path)"), data.count)
    }

    private func changing<T: Sendable>(_ change: ([RuleDeviationDTO]) throws -> ([RuleDeviationDTO], T)) throws -> T {
        try lock.withLock { _ in
            do {
                let target = try OwnFile.target(of: path)
                let folder = URL(fileURLWithPath: target).deletingLastPathComponent()
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                return try SystemCall.withExclusiveLock(on: target + ".lock") {
                    let before = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
                    let (kept, result) = try change(try read())
                    let text = try RuleDocument.yaml(kept.sorted { ($0.from, $0.id) < ($1.from, $1.id) })
                    try RuleCheck.checkSize(of: text, before: before, where: "the rules file \(path)")
                    try OwnFile.replace(path, with: Data(text.utf8))
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

    package init(store: any BridgeStore, location: String, catalog: BridgeCatalog) {
        self.store = store
        self.location = location
        self.catalog = catalog
    }

    package func document() async throws -> (deviations: [RuleDeviationDTO], bytes: Int) {
        guard let kept = try await store.keptAnswer(named: Self.name) else { return ([], 0) }
        return (try RuleDocument.deviations(fromYAML: String(decoding: kept.body, as: UTF8.self), catalog: catalog,
                                            origin: "the rules kept in \(location)"), kept.body.count)
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
            let before = try await store.keptAnswer(named: Self.name)?.body.count ?? 0
            let (kept, result) = try change(try await deviations())
            let text = try RuleDocument.yaml(kept.sorted { ($0.from, $0.id) < ($1.from, $1.id) })
            try RuleCheck.checkSize(of: text, before: before, where: "the rules kept in \(location)")
            try await store.keepAnswer(Data(text.utf8), named: Self.name, historyVersion: 0)
            return result
        }
    }
}

extension AppContext {
    /// The dated deviations as `rules.storage` places them.
    package func savedRules(_ store: any BridgeStore, catalog: BridgeCatalog) -> any SavedRules {
        guard configuration.rulesInStore else { return RuleFile(path: configuration.rulesPath, catalog: catalog) }
        return StoreRules(store: store, location: "the store at \(assembly.storeDescription)", catalog: catalog)
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
