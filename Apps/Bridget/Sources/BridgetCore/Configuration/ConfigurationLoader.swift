import BridgetDTOs
import Foundation
import Yams

/// Finds, parses and checks the configuration: YAML file (or the embedded default), then `BRIDGET_*` overrides.
///
/// Yams' decoder ignores unknown keys and reports type errors without a line, so this walks the composed node
/// tree itself: every unknown key, wrong type or unknown kind is reported with its key path and line.
package struct ConfigurationLoader: Sendable {
    package let schema: ConfigSchema
    package let environment: [String: String]

    package init(schema: ConfigSchema = .bridget, environment: [String: String]) {
        self.schema = schema
        self.environment = environment
    }

    /// Variables that are not key overrides.
    package static let reservedVariables: Set<String> = ["BRIDGET_CONFIG", "BRIDGET_APP_TOKEN", "BRIDGET_API_TOKEN"]

    /// Loads the configuration chosen by `--config`, else `BRIDGET_CONFIG`, else
    /// `$XDG_CONFIG_HOME/bridget/bridget.yaml` when it exists, else the embedded default.
    package func load(explicitPath: String?) throws -> BridgetConfiguration {
        let (text, origin) = try source(explicitPath: explicitPath)
        return BridgetConfiguration(try resolve(yaml: text, origin: origin), environment: environment)
    }

    package func source(explicitPath: String?) throws -> (text: String, origin: String) {
        if let path = explicitPath ?? environment["BRIDGET_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return (try Self.read(path, hint: "check the path given to --config or BRIDGET_CONFIG"), path)
        }
        let configHome = environment["XDG_CONFIG_HOME"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        let userFile = configHome + "/bridget/bridget.yaml"
        if FileManager.default.fileExists(atPath: userFile) {
            return (try Self.read(userFile, hint: "fix or remove it, or name another file with --config"), userFile)
        }
        return (DefaultConfiguration.yaml, DefaultConfiguration.origin)
    }

    /// Parses YAML text, checks it against the schema, applies defaults and environment overrides.
    package func resolve(yaml: String, origin: String) throws -> ResolvedConfiguration {
        var problems = ConfigProblemList()
        var values: [String: (value: ConfigValue, source: ConfigSource)] = [:]
        for key in schema.keys { values[key.path] = (key.defaultValue, .defaultValue) }

        let root: Node?
        do {
            // The basic resolver: values are read as text and checked against the schema here, so the default
            // resolver's tags (and the regular expressions it compiles in every run) would go unused.
            root = try Yams.compose(yaml: yaml, .basic)
        } catch let error as YamlError {
            throw Self.malformed(error, yaml: yaml, origin: origin)
        }
        // A document with nothing in it (an empty file, or only `---`) means the defaults.
        if let root, !(root.scalar.map(Self.isNull) ?? false) {
            walk(root, section: "", origin: origin, values: &values, problems: &problems)
        }

        for key in schema.keys {
            guard let text = environment[key.environmentName] else { continue }
            switch parse(text, for: key) {
            case .success(let value): values[key.path] = (value, .environment(key.environmentName))
            case .failure(let reason): problems.add("$\(key.environmentName) (\(key.path)): \(reason)")
            }
        }
        if let (value, source) = values["stream.max_clients"], source != .defaultValue, case .integer(let streams) = value,
           case .integer(let connections)? = values["serve.max_connections"]?.value, streams >= connections {
            problems.add("'stream.max_clients' (\(streams)) must be below 'serve.max_connections' (\(connections)): stream "
                         + "clients hold their connections, and other requests need slots too")
        }
        var known = Set(schema.keys.map(\.environmentName)).union(Self.reservedVariables)
        if case .text(let tokenVariable)? = values["provider.live.app_token_env"]?.value { known.insert(tokenVariable) }
        if case .text(let tokenVariable)? = values["serve.token_env"]?.value { known.insert(tokenVariable) }
        if case .text(let passwordVariable)? = values["store.postgres.password_env"]?.value { known.insert(passwordVariable) }
        // A webhook's secrets are not overrides: their variables are the alerts' own (`WebhookSecrets`).
        for name in environment.keys.sorted()
        where name.hasPrefix("BRIDGET_") && !known.contains(name) && !name.hasPrefix(WebhookSecrets.prefix) {
            problems.add("$\(name) is not a configuration override"
                         + (suggestion(for: name, among: Array(known)).map { " (did you mean \($0)?)" } ?? ""))
        }
        guard problems.isEmpty else {
            throw BridgetError(.configInvalid, "invalid configuration:\n" + problems.report,
                hint: "`bridget config show` lists every key, its type and its default")
        }
        return ResolvedConfiguration(origin: origin, schema: schema, values: values)
    }

    private func walk(
        _ node: Node, section: String, origin: String,
        values: inout [String: (value: ConfigValue, source: ConfigSource)], problems: inout ConfigProblemList
    ) {
        let line = node.mark?.line ?? 0
        guard let mapping = node.mapping else {
            let name = section.isEmpty ? "the top level" : "'\(section)'"
            problems.add("\(origin):\(line): \(name) must be a mapping of keys to values")
            return
        }
        let allowed = schema.children(of: section)
        for (keyNode, valueNode) in mapping {
            let keyLine = keyNode.mark?.line ?? line
            let name = keyNode.scalar?.string ?? "?"
            let path = section.isEmpty ? name : section + "." + name
            guard allowed.contains(name) else {
                // Built only for the problems shown: a file of 400,000 unknown keys costs no suggestion each. The valid
                // keys of a section are listed on its first unknown key's line only.
                let listing = problems.firstMention(of: section)
                problems.add {
                    let hint = suggestion(for: name, among: allowed).map { " (did you mean '\($0)'?)" } ?? ""
                    let within = section.isEmpty ? "at the top level" : "in '\(section)'"
                    return "\(origin):\(keyLine): unknown key \(ConfigValueType.quoted(path)) \(within)\(hint)"
                        + (listing ? "; valid keys: \(allowed.joined(separator: ", "))" : "")
                }
                continue
            }
            if schema.sections.contains(path) {
                if case .scalar(let scalar) = valueNode, Self.isNull(scalar) { continue } // an empty section
                walk(valueNode, section: path, origin: origin, values: &values, problems: &problems)
                continue
            }
            guard let key = schema.key(path) else { continue }
            let valueLine = valueNode.mark?.line ?? keyLine
            // A list (of times, of origins) is one value: its items joined by commas, each checked like a variable's.
            if key.type.isList, let items = valueNode.sequence {
                let texts = items.compactMap { $0.scalar?.string }
                guard texts.count == items.count else {
                    problems.add("\(origin):\(valueLine): '\(path)' has the wrong type: "
                                 + "expected \(key.type.expectation), got a list holding a list or a mapping")
                    continue
                }
                switch parse(texts.joined(separator: ","), for: key) {
                case .success(let value): values[path] = (value, .file(path: origin, line: valueLine))
                case .failure(let reason):
                    problems.add("\(origin):\(valueLine): '\(path)' has the wrong type: \(reason)")
                }
                continue
            }
            guard case .scalar(let scalar) = valueNode else {
                problems.add("\(origin):\(valueLine): '\(path)' has the wrong type: expected \(key.type.expectation), "
                                + "got a \(valueNode.mapping != nil ? "mapping" : "list")")
                continue
            }
            let text = Self.isNull(scalar) ? nil : scalar.string
            switch parse(text, for: key) {
            case .success(let value): values[path] = (value, .file(path: origin, line: valueLine))
            case .failure(let reason):
                if case .choice(let words) = key.type, let text {
                    problems.add("\(origin):\(valueLine): unknown \(section) \(ConfigValueType.quoted(text)) at '\(path)'; "
                                    + "valid: \(words.joined(separator: ", "))")
                } else {
                    let what = reason.isWrongType ? "has the wrong type" : "is not valid"
                    problems.add("\(origin):\(valueLine): '\(path)' \(what): \(reason)")
                }
            }
        }
    }

    private func parse(_ text: String?, for key: ConfigKey) -> Result<ConfigValue, ConfigProblem> {
        guard let text, !(key.nullable && ["", "null", "~"].contains(text)) else {
            return key.nullable ? .success(.null) : .failure(ConfigProblem("expected \(key.type.expectation), got null"))
        }
        return key.type.parse(text)
    }

    private static func isNull(_ scalar: Node.Scalar) -> Bool {
        scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }
}
