import BridgetCaching
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import Yams

/// Saved routes in a YAML file beside the configuration (`routes.path`), not in the data store: a route is a
/// setting, and pointing `store.path` elsewhere must not lose it. The same file is what `route export` writes and
/// `route import` reads:
///
/// ```yaml
/// routes:
///   - name: commute
///     favorite: true
///     crossings:
///       - bridges: ["3", "2"]   # bridge ids, preferred first
///         minutes: 8            # from departure
/// ```
///
/// Writes replace the file whole (a temporary file renamed over it), so a crash leaves the old or the new file; a
/// change (read, then write) holds an exclusive lock on `routes.yaml.lock` beside it, so two processes saving routes
/// at once both keep theirs. A symbolic link at `path` is followed (the file it names is replaced), and the file's
/// permissions are kept.
package final class RouteFile: RouteStore {
    package let path: String
    private let lock = Locked(())

    package init(path: String) { self.path = path }

    /// The file a write replaces: `path`, or the file its symbolic link names.
    /// The file writes go to (`OwnFile.target(of:)`); the path itself when that refuses, so the write says why.
    private var target: String { (try? OwnFile.target(of: path)) ?? path }

    /// Runs a read-then-write under this process's lock and the file lock other processes take.
    private func changing<T: Sendable>(_ body: () throws -> T) throws -> T {
        try lock.withLock { _ in
            let folder = URL(fileURLWithPath: target).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw BridgetError(.dataRoutesWrite, "cannot create the routes folder \(folder.path): "
                                        + error.localizedDescription,
                                        hint: "routes.path in the config chooses where routes are kept")
            }
            do {
                return try SystemCall.withExclusiveLock(on: target + ".lock", body)
            } catch let error as POSIXError {
                throw BridgetError(.dataRoutesWrite, "cannot lock the routes file \(path): \(error.localizedDescription)")
            }
        }
    }

    /// A short sum of the file's bytes ("" when there is none): it changes whenever a route is saved or removed,
    /// here or by another process, so answers about routes can be tagged with it.
    package func fingerprint() -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return FNV1a.hex(data.withUnsafeBytes { FNV1a.hash($0) })
    }

    /// Whether the file exists yet.
    package var exists: Bool { FileManager.default.fileExists(atPath: path) }

    package func routes() async throws -> [RouteDTO] {
        try lock.withLock { _ in try read() }.sorted { ($0.isFavorite ? 0 : 1, $0.id) < ($1.isFavorite ? 0 : 1, $1.id) }
    }

    package func saveRoute(_ route: RouteDTO) async throws {
        try changing {
            var routes = try read().filter { $0.id != route.id }
            routes.append(route)
            try write(routes)
        }
    }

    package func removeRoute(named name: String) async throws -> Bool {
        try changing {
            let routes = try read()
            guard routes.contains(where: { $0.id == name }) else { return false }
            try write(routes.filter { $0.id != name })
            return true
        }
    }

    /// Replaces or adds every route given; returns how many were new. `store`, when given, is recorded as copied
    /// in (see `copiedStores`).
    package func merge(_ incoming: [RouteDTO], from store: String? = nil) throws -> Int {
        try changing {
            let existing = try read()
            let names = Set(existing.map(\.id))
            let replaced = Set(incoming.map(\.id))
            var stores = try readDocument()?.fromStores ?? []
            if let store, !stores.contains(store) { stores.append(store) }
            try write(existing.filter { !replaced.contains($0.id) } + incoming, fromStores: stores)
            return incoming.filter { !names.contains($0.id) }.count
        }
    }

    /// The stores whose routes were copied into this file.
    package func copiedStores() throws -> [String] { try lock.withLock { _ in try readDocument()?.fromStores ?? [] } }

    // MARK: - The YAML form

    private struct Document: Decodable {
        package var routes: [Entry]
        /// The stores whose routes were copied in (an earlier Bridget kept routes in the store): their routes are
        /// this file's now, so one removed here is not offered back.
        package var fromStores: [String]

        package enum CodingKeys: String, CodingKey {
            case routes
            case fromStores = "from_stores"
        }

        package init(from decoder: any Decoder) throws {
            // `routes:` with nothing under it is an empty list, as a person writing the file means it.
            let container = try decoder.container(keyedBy: CodingKeys.self)
            routes = try container.decodeIfPresent([Entry].self, forKey: .routes) ?? []
            fromStores = try container.decodeIfPresent([String].self, forKey: .fromStores) ?? []
        }
    }

    private struct Entry: Codable {
        package var name: String
        package var favorite: Bool?
        package var crossings: [Crossing]
    }

    private struct Crossing: Codable {
        package var bridges: [String]
        package var minutes: Double
    }

    /// The YAML text of some routes, in name order. Written by hand for a stable, readable form (numbers as people
    /// write them, not `8e+0`); names are double-quoted scalars, which YAML reads as JSON strings.
    package static func yaml(_ routes: [RouteDTO], fromStores: [String] = []) throws -> String {
        func quoted(_ text: String) throws -> String {
            String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
        }
        var lines = ["# Bridget's saved routes: `bridget route add|remove|import` change this file."]
        if !fromStores.isEmpty {
            lines.append("from_stores: [" + (try fromStores.map(quoted).joined(separator: ", ")) + "]")
        }
        lines.append(routes.isEmpty ? "routes: []" : "routes:")
        for route in routes.sorted(by: { $0.id < $1.id }) {
            lines.append("  - name: " + (try quoted(route.id)))
            if route.isFavorite { lines.append("    favorite: true") }
            lines.append("    crossings:")
            for crossing in route.crossings {
                let bridges = try crossing.bridgeIDs.map(quoted).joined(separator: ", ")
                lines.append("      - bridges: [\(bridges)]")
                lines.append("        minutes: " + String(format: "%g", crossing.minutesFromStart))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Routes from YAML text; `origin` names the text in errors.
    package static func routes(fromYAML text: String, origin: String) throws -> [RouteDTO] {
        let document: Document
        do {
            document = try YAMLDecoder().decode(Document.self, from: text.isEmpty ? "routes: []" : text)
        } catch {
            throw BridgetError(.dataRoutesFile, "\(origin) is not a routes file: \(Self.reason(error))",
                                    hint: "it holds `routes:`, a list of `name`, `favorite` and `crossings` "
                                        + "(`bridges`: ids, `minutes`); `bridget route export` shows one")
        }
        var seen = Set<String>()
        return try document.routes.map { entry in
            let name = entry.name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, seen.insert(name).inserted else {
                throw BridgetError(.dataRoutesFile, "\(origin) names the route '\(entry.name)' "
                                        + (name.isEmpty ? "(an empty name)" : "twice"))
            }
            guard !entry.crossings.isEmpty,
                  entry.crossings.allSatisfy({ !$0.bridges.isEmpty && $0.minutes.isFinite && (0...1_440).contains($0.minutes) }),
                  zip(entry.crossings, entry.crossings.dropFirst()).allSatisfy({ $0.minutes <= $1.minutes })
            else {
                throw BridgetError(.dataRoutesFile, "\(origin): route '\(name)' needs crossings with bridges and "
                                        + "minutes from 0 to 1440, in travel order")
            }
            return RouteDTO(id: name, crossings: entry.crossings.map {
                RouteCrossingDTO(bridgeIDs: $0.bridges, minutesFromStart: $0.minutes)
            }, isFavorite: entry.favorite ?? false)
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
                 .dataCorrupted(let context):
                let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                return (path.isEmpty ? "" : path + ": ") + context.debugDescription
            @unknown default: break
            }
        }
        return "\(error)"
    }

    private func read() throws -> [RouteDTO] {
        guard let data = FileManager.default.contents(atPath: path) else {
            if exists {
                throw BridgetError(.dataRoutesRead, "cannot read the routes file \(path)")
            }
            return []
        }
        return try Self.routes(fromYAML: String(decoding: data, as: UTF8.self), origin: "the routes file \(path)")
    }

    /// The file's document (routes already checked by `read`), or `nil` when there is no file.
    private func readDocument() throws -> Document? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? YAMLDecoder().decode(Document.self, from: data.isEmpty ? "routes: []" : String(decoding: data, as: UTF8.self))
    }

    private func write(_ routes: [RouteDTO], fromStores: [String]? = nil) throws {
        let text = try Self.yaml(routes, fromStores: fromStores ?? (try readDocument()?.fromStores ?? []))
        do {
            try OwnFile.replace(path, with: Data(text.utf8), makingFolder: true)
        } catch {
            throw BridgetError(.dataRoutesWrite, "cannot write the routes file \(path): \(error.localizedDescription)",
                                    hint: "routes.path in the config chooses where routes are kept")
        }
    }
}

extension AppContext {
    /// The routes file (`routes.path`). The first time it is used, routes an earlier Bridget kept in the store are
    /// copied into it, so an upgrade loses none (they stay in the store too, unread).
    package func routeFile(migratingFrom store: any RouteStore) async throws -> RouteFile {
        let file = RouteFile(path: assembly.configuration.routesPath)
        guard !file.exists else { return file }
        let stored = try await store.routes()
        guard !stored.isEmpty else { return file }
        _ = try file.merge(stored, from: assembly.storeDescription)
        note("copied \(stored.count) saved routes from the store at \(assembly.storeDescription) to \(file.path), "
                      + "where routes are kept now")
        return file
    }
}
