import BridgetDTOs
import Foundation

/// Where a configuration value came from.
enum ConfigSource: Sendable, Equatable, CustomStringConvertible {
    case defaultValue
    case file(path: String, line: Int)
    case environment(String)

    var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path, let line): "\(path):\(line)"
        case .environment(let name): "$\(name)"
        }
    }
}

/// Every key's value and where it came from, after the file and the environment were applied.
struct ResolvedConfiguration: Sendable {
    /// The file read, or "(embedded default)".
    let origin: String
    let schema: ConfigSchema
    let values: [String: (value: ConfigValue, source: ConfigSource)]

    func value(_ path: String) -> ConfigValue { values[path]?.value ?? .null }

    func integer(_ path: String) -> Int {
        if case .integer(let value) = value(path) { return value }
        return 0
    }

    func number(_ path: String) -> Double {
        switch value(path) {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: 0
        }
    }

    func text(_ path: String) -> String? {
        if case .text(let value) = value(path) { return value }
        return nil
    }
}

/// The typed configuration the composition root builds from.
struct BridgetConfiguration: Sendable {
    struct SampleSettings: Sendable, Equatable {
        var seed: UInt64
        var days: Int
        var endDate: LocalDay?
        var invalidRate: Double
        var pageSize: Int
    }

    var provider: ProviderKind
    var sample: SampleSettings
    var processor: ProcessorKind
    var store: StoreKind
    /// The SQLite file, resolved (tilde expanded, absolute).
    var storePath: String
    var batchSize: Int
    var overlap: TimeInterval
    var maximumDistanceMeters: Double
    /// The values and their sources, for `config show`.
    let resolved: ResolvedConfiguration

    /// Builds the typed view; every value was already checked against the schema.
    init(_ resolved: ResolvedConfiguration, environment: [String: String]) {
        self.resolved = resolved
        provider = ProviderKind(rawValue: resolved.text("provider.kind") ?? "") ?? .sample
        sample = SampleSettings(
            seed: UInt64(resolved.integer("provider.sample.seed")), days: resolved.integer("provider.sample.days"),
            endDate: resolved.text("provider.sample.end_date").flatMap(LocalDay.init),
            invalidRate: resolved.number("provider.sample.invalid_rate"),
            pageSize: resolved.integer("provider.sample.page_size"))
        processor = ProcessorKind(rawValue: resolved.text("processor.kind") ?? "") ?? .serial
        store = StoreKind(rawValue: resolved.text("store.kind") ?? "") ?? .sqlite
        storePath = Self.resolveStorePath(resolved.text("store.path"), environment: environment)
        batchSize = resolved.integer("sync.batch_size")
        overlap = TimeInterval(resolved.integer("sync.overlap_hours")) * 3600
        maximumDistanceMeters = resolved.number("validation.max_distance_meters")
    }

    /// `store.path`, or the XDG default when it is null.
    static func resolveStorePath(_ configured: String?, environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        if let configured, !configured.isEmpty {
            var path = configured
            if path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
            if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
            return URL(fileURLWithPath: path).standardizedFileURL.path
        }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return dataHome + "/bridget/bridget.sqlite"
    }
}
