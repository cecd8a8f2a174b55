/// The data sources `provider.kind` can name. Adding one: a provider file, a case here, and the arms the
/// compiler then asks for (its settings below, its construction in `BridgetAssembly`).
enum ProviderKind: String, CaseIterable, Sendable {
    /// Synthetic, realistic, deterministic openings; no network.
    case sample

    /// The keys of this provider's own section, `provider.<kind>`.
    var settings: [ConfigKey] {
        switch self {
        case .sample:
            [
                ConfigKey("provider.sample.seed", .integer(0...Int.max), default: .integer(42),
                          help: "generator seed; the same seed and days give identical rows"),
                ConfigKey("provider.sample.days", .integer(1...36_500), default: .integer(365),
                          help: "days of history to generate, ending with end_date"),
                ConfigKey("provider.sample.end_date", .date, default: .null, nullable: true,
                          help: "last day generated (YYYY-MM-DD, Seattle); null means yesterday"),
                ConfigKey("provider.sample.invalid_rate", .number(0...1), default: .number(0.002),
                          help: "share of openings written as a row that breaks a validation rule"),
                ConfigKey("provider.sample.page_size", .integer(1...1_000_000), default: .integer(5_000),
                          help: "rows per page (whole days are kept together)"),
            ]
        }
    }
}

/// The processors `processor.kind` can name.
enum ProcessorKind: String, CaseIterable, Sendable {
    /// Every job on one task, step by step.
    case serial
}

/// The stores `store.kind` can name.
enum StoreKind: String, CaseIterable, Sendable {
    /// A SQLite file at `store.path`.
    case sqlite
    /// Nothing on disk; each command starts empty (read commands sync first).
    case memory
}

extension ConfigSchema {
    /// Bridget's configuration keys.
    static let bridget = ConfigSchema(keys: [
        ConfigKey("provider.kind", .choice(ProviderKind.allCases.map(\.rawValue)), default: .text("sample"),
                  help: "where openings come from"),
    ] + ProviderKind.allCases.flatMap(\.settings) + [
        ConfigKey("processor.kind", .choice(ProcessorKind.allCases.map(\.rawValue)), default: .text("serial"),
                  help: "how analysis work is scheduled"),
        ConfigKey("store.kind", .choice(StoreKind.allCases.map(\.rawValue)), default: .text("sqlite"),
                  help: "where openings are kept"),
        ConfigKey("store.path", .text, default: .null, nullable: true,
                  help: "SQLite file; null means $XDG_DATA_HOME/bridget/bridget.sqlite (~/.local/share/bridget/…)"),
        ConfigKey("sync.batch_size", .integer(1...1_000_000), default: .integer(5_000),
                  help: "events written per transaction"),
        ConfigKey("sync.overlap_hours", .integer(0...8_760), default: .integer(48),
                  help: "an incremental sync re-reads this much before the newest stored opening"),
        ConfigKey("validation.max_distance_meters", .number(1...1_000_000), default: .number(1_000),
                  help: "a row whose coordinates lie farther from its bridge is rejected"),
    ])
}
