import BridgetNetworking
import Foundation

/// The type of one configuration value, and how text becomes that value.
package enum ConfigValueType: Sendable, Equatable {
    case integer(ClosedRange<Int>)
    case number(ClosedRange<Double>)
    case text
    /// A Seattle local date, `YYYY-MM-DD`.
    case date
    /// One of a fixed list of words.
    case choice([String])
    /// An http or https URL with a host: what the live provider can request.
    case httpURL
    /// A Socrata dataset id, four-by-four lowercase letters and digits (`gm8h-9449`).
    case datasetID
    /// A file or folder path: any text without a NUL, where the system would cut the path short.
    case path
    /// Local times of day, `HH:MM`: a YAML list, or (in a variable) separated by commas. Kept as `05:30,17:30`.
    case timesOfDay
    /// A duration in whole minutes within the range: `30m`, `2h`, `90` (minutes). Kept as the minutes.
    case minutes(ClosedRange<Int>)
    /// A map tile server's URL template: http(s), with a host and `{z}`, `{x}` and `{y}`.
    case tileURL
    /// Web origins (`https://app.example`, `http://localhost:3000`): a YAML list, or (in a variable) separated by
    /// commas; `*` alone for any origin when `anyAllowed`. Kept lowercased, as `https://a.example,https://b.example`
    /// (`` for none).
    case origins(anyAllowed: Bool)

    /// Whether a YAML list is one value of this type (its items joined by commas).
    package var isList: Bool {
        switch self {
        case .timesOfDay, .origins: true
        default: false
        }
    }

    /// What the type accepts, for error messages.
    package var expectation: String {
        switch self {
        case .integer(let range): "an integer from \(range.lowerBound) to \(range.upperBound)"
        case .number(let range): "a number from \(range.lowerBound) to \(range.upperBound)"
        case .text: "a string"
        case .date: "a date YYYY-MM-DD"
        case .choice(let words): "one of " + words.joined(separator: ", ")
        case .httpURL: "an http or https URL such as https://data.seattle.gov"
        case .datasetID: "a dataset id of four lowercase letters or digits, '-', four more, such as gm8h-9449"
        case .path: "a path"
        case .timesOfDay: "a list of local times HH:MM such as [\"05:30\", \"17:30\"]"
        case .minutes(let range): "a duration such as 30m or 2h, from \(range.lowerBound) to \(range.upperBound) minutes"
        case .tileURL: "a tile URL with {z}, {x} and {y} such as https://tile.openstreetmap.org/{z}/{x}/{y}.png"
        case .origins(let anyAllowed):
            "a list of web origins such as [\"https://app.example\"] (scheme, host and port, no path)"
                + (anyAllowed ? ", or \"*\" for any origin" : "")
        }
    }

    /// Parses text into a value, or says why not.
    package func parse(_ text: String) -> Result<ConfigValue, ConfigProblem> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .integer(let range):
            guard let value = Int(trimmed.replacingOccurrences(of: "_", with: "")) else {
                return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(text))"))
            }
            guard range.contains(value) else { return .failure(ConfigProblem("expected \(expectation), got \(value)")) }
            return .success(.integer(value))
        case .number(let range):
            guard let value = Double(trimmed), value.isFinite else {
                return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(text))"))
            }
            guard range.contains(value) else { return .failure(ConfigProblem("expected \(expectation), got \(value)")) }
            return .success(.number(value))
        case .text:
            return .success(.text(text))
        case .date:
            guard LocalDay(trimmed) != nil else {
                return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(text))"))
            }
            return .success(.text(trimmed))
        case .choice(let words):
            guard words.contains(trimmed) else {
                return .failure(ConfigProblem("\(Self.quoted(trimmed)) is not valid; expected \(expectation)"))
            }
            return .success(.text(trimmed))
        case .httpURL:
            // The same test the live provider applies when it builds its first request.
            guard let url = URL(string: trimmed), SocrataQuery.isBaseURL(url) else {
                return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(text))", wrongType: false))
            }
            return .success(.text(trimmed))
        case .datasetID:
            guard SocrataQuery.isDatasetID(trimmed) else {
                return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(text))", wrongType: false))
            }
            return .success(.text(trimmed))
        case .path:
            guard !text.utf8.contains(0) else {
                return .failure(ConfigProblem("a path cannot hold a NUL character, got \(Self.quoted(text))",
                                              wrongType: false))
            }
            return .success(.text(text))
        case .timesOfDay:
            return parseTimesOfDay(trimmed)
        case .tileURL:
            return parseTileURL(trimmed, as: text)
        case .origins(let anyAllowed):
            return parseOrigins(trimmed, anyAllowed: anyAllowed)
        case .minutes(let range):
            let lowered = trimmed.lowercased()
            let value: Int? = if lowered.hasSuffix("h") { Int(lowered.dropLast()).map { $0 * 60 } }
                else if lowered.hasSuffix("m") { Int(lowered.dropLast()) }
                else { Int(lowered) }
            guard let value else { return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(text))")) }
            guard range.contains(value) else {
                return .failure(ConfigProblem("expected \(expectation), got \(value) minutes", wrongType: false))
            }
            return .success(.integer(value))
        }
    }

    /// `05:30,17:30`: times of day, each once, in order.
    private func parseTimesOfDay(_ trimmed: String) -> Result<ConfigValue, ConfigProblem> {
        let items = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var shown: [String] = []
        for item in items {
            guard let (hour, minute) = TimeGrammar.timeOfDay(item), item.split(separator: ":").count == 2 else {
                return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(item))"))
            }
            let time = String(format: "%02d:%02d", hour, minute)
            if !shown.contains(time) { shown.append(time) }
        }
        guard !shown.isEmpty else { return .failure(ConfigProblem("expected \(expectation), got an empty list")) }
        return .success(.text(shown.sorted().joined(separator: ",")))
    }

    /// A tile URL with `{z}`, `{x}` and `{y}`, over http(s), that cannot break out of the page's markup.
    private func parseTileURL(_ trimmed: String, as text: String) -> Result<ConfigValue, ConfigProblem> {
        let filled = trimmed.replacingOccurrences(of: "{z}", with: "0").replacingOccurrences(of: "{x}", with: "0")
            .replacingOccurrences(of: "{y}", with: "0")
        guard ["{z}", "{x}", "{y}"].allSatisfy(trimmed.contains), let url = URL(string: filled),
              ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
              !trimmed.contains("\""), !trimmed.contains("<")
        else {
            return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(text))", wrongType: false))
        }
        return .success(.text(trimmed))
    }

    /// Web origins, normalised, each once; or `*` where any origin may be allowed.
    private func parseOrigins(_ trimmed: String, anyAllowed: Bool) -> Result<ConfigValue, ConfigProblem> {
        let items = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if items == ["*"] {
            guard anyAllowed else {
                return .failure(ConfigProblem("'*' is not allowed here: list each origin that may write",
                                              wrongType: false))
            }
            return .success(.text("*"))
        }
        var kept: [String] = []
        for item in items {
            guard let origin = WebOrigin(item) else {
                return .failure(ConfigProblem("expected \(expectation), got \(Self.quoted(item))", wrongType: false))
            }
            if !kept.contains(origin.text) { kept.append(origin.text) }
        }
        return .success(.text(kept.joined(separator: ",")))
    }

    /// A value as messages show it: quoted, control characters escaped (`\0`, `\n`), cut after 80 characters.
    package static func quoted(_ text: String) -> String { "'" + escaped(text, limit: 80) + "'" }

    /// Text as messages show it: control characters escaped, so a file's bytes cannot move the terminal's cursor or
    /// hide in the output, and cut with "…" after `limit` characters, so a huge value gives a short message.
    package static func escaped(_ text: some StringProtocol, limit: Int) -> String {
        var shown = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard index < limit else {
                shown += "…"
                break
            }
            switch scalar {
            case "\0": shown += "\\0"
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            default:
                shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true)
                    : String(scalar)
            }
        }
        return shown
    }
}

/// Why a text is not a valid value for a key.
package struct ConfigProblem: Error, CustomStringConvertible {
    package let description: String
    /// False when the text has the right type but is not a usable value (a URL the client cannot request).
    package let isWrongType: Bool

    package init(_ description: String, wrongType: Bool = true) {
        self.description = description
        isWrongType = wrongType
    }
}

/// A parsed configuration value.
package enum ConfigValue: Sendable, Equatable, CustomStringConvertible {
    case integer(Int)
    case number(Double)
    case text(String)
    case null

    package var description: String {
        switch self {
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .text(let value): value
        case .null: "null"
        }
    }
}

/// One key the configuration accepts.
package struct ConfigKey: Sendable {
    /// Dotted path, e.g. `provider.sample.seed`.
    package let path: String
    package let type: ConfigValueType
    /// The value when neither the file nor the environment gives one.
    package let defaultValue: ConfigValue
    /// Whether `null` is accepted.
    package let nullable: Bool
    /// One line for `config show` and the docs.
    package let help: String

    package init(_ path: String, _ type: ConfigValueType, default defaultValue: ConfigValue, nullable: Bool = false,
         help: String) {
        self.path = path
        self.type = type
        self.defaultValue = defaultValue
        self.nullable = nullable
        self.help = help
    }

    /// The environment variable that overrides this key: `BRIDGET_` + the path in capitals, dots as underscores.
    package var environmentName: String {
        "BRIDGET_" + String(path.map { $0 == "." ? "_" : $0 }).uppercased()
    }
}

/// Every key Bridget's configuration accepts, in the order `config show` prints them.
package struct ConfigSchema: Sendable {
    package let keys: [ConfigKey]
    /// Paths of sections (mappings), e.g. `provider` and `provider.sample`: worked out once, as every section of a
    /// file is checked against them.
    package let sections: Set<String>

    package init(keys: [ConfigKey]) {
        self.keys = keys
        var sections = Set<String>()
        for key in keys {
            var parts = key.path.split(separator: ".").dropLast()
            while !parts.isEmpty {
                sections.insert(parts.joined(separator: "."))
                parts = parts.dropLast()
            }
        }
        self.sections = sections
    }

    package func key(_ path: String) -> ConfigKey? { keys.first { $0.path == path } }

    /// Names allowed directly inside a section ("" for the top level).
    package func children(of section: String) -> [String] {
        let prefix = section.isEmpty ? "" : section + "."
        var names: [String] = []
        for path in keys.map(\.path) + sections.sorted() where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            guard !rest.isEmpty else { continue }
            let name = String(rest.split(separator: ".")[0])
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}

/// Edit distance, for "did you mean …?" suggestions.
package func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let a = Array(lhs.lowercased())
    let b = Array(rhs.lowercased())
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + [Int](repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

/// The closest candidate to a misspelt word, if one is close enough to be a plausible typo.
package func suggestion(for word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
    guard let best = scored.first, best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
}
