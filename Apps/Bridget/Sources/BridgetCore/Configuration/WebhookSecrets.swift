import Foundation

/// Where a webhook's signing secrets come from: only variables named `BRIDGET_ALERT_SECRET_<NAME>`, from the
/// server's environment or from the secrets file (`alerts.secrets_file`, lines `BRIDGET_ALERT_SECRET_<NAME>=value`),
/// never any other variable (an alert that could name `BRIDGET_API_TOKEN` would sign its messages with the API token:
/// an offline guessing oracle for it).
///
/// A variable holds one secret, or several separated by spaces while a secret is rotated (each message is then signed
/// with each, as Standard Webhooks allows). A secret is `whsec_` and base64 (Standard Webhooks' form, the key is the
/// decoded bytes) or plain text (the key is its UTF-8 bytes); a key shorter than 24 bytes is refused.
package struct WebhookSecrets: Sendable {
    /// The prefix every secret's variable has.
    package static let prefix = "BRIDGET_ALERT_SECRET_"
    /// The shortest key taken, in bytes.
    package static let minimumBytes = 24
    /// The most secrets one variable holds (a rotation needs two).
    package static let maximumSecrets = 4

    package let environment: [String: String]
    /// The secrets file's path, if one is configured.
    package let file: String?

    package init(environment: [String: String], file: String?) {
        self.environment = environment
        self.file = file
    }

    /// Why a secret cannot be had.
    package struct Problem: Error, CustomStringConvertible, Equatable {
        package let description: String
        /// The variable is not set (anywhere): it may be where and when messages are sent.
        package var isMissing = false
    }

    /// Whether `name` is a variable an alert may name: the prefix and then capitals, digits and `_`.
    package static func isSecretName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix), name.utf8.count > prefix.utf8.count, name.utf8.count <= 128 else { return false }
        return name.utf8.dropFirst(prefix.utf8.count).allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }

    /// The signing keys the variable `name` holds now, newest first as written.
    package func keys(named name: String) throws -> [[UInt8]] {
        guard Self.isSecretName(name) else {
            throw Problem(description: "'\(ConfigValueType.escaped(name, limit: 60))' is not a secret's variable: "
                          + "its name must start with \(Self.prefix)")
        }
        guard let value = try value(of: name) else {
            throw Problem(description: "the variable \(name) that holds the webhook's secret is not set"
                          + (file == nil ? "" : " (in the environment or the secrets file)"), isMissing: true)
        }
        let secrets = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !secrets.isEmpty else {
            throw Problem(description: "the variable \(name) that holds the webhook's secret is empty", isMissing: true)
        }
        guard secrets.count <= Self.maximumSecrets else {
            throw Problem(description: "the variable \(name) holds \(secrets.count) secrets; at most "
                          + "\(Self.maximumSecrets) (the new and the old while rotating)")
        }
        return try secrets.enumerated().map { index, secret in
            let which = secrets.count == 1 ? "the secret" : "secret \(index + 1)"
            let key: [UInt8]
            if secret.hasPrefix("whsec_") {
                guard let decoded = Data(base64Encoded: String(secret.dropFirst(6))) else {
                    throw Problem(description: "\(which) in \(name) starts with whsec_ but the rest is not base64")
                }
                key = Array(decoded)
            } else {
                key = Array(secret.utf8)
            }
            guard key.count >= Self.minimumBytes else {
                throw Problem(description: "\(which) in \(name) is \(key.count) bytes; a webhook's secret is at least "
                              + "\(Self.minimumBytes) (make one with `openssl rand -base64 32` and prefix it with whsec_)")
            }
            return key
        }
    }

    /// The variable's value: the environment's, else the secrets file's.
    private func value(of name: String) throws -> String? {
        if let value = environment[name], !value.isEmpty { return value }
        guard let file else { return nil }
        let text: String
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            guard data.count <= 1 << 20 else { throw Problem(description: "the secrets file \(file) is over 1 MiB") }
            text = String(decoding: data, as: UTF8.self)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(description: "the secrets file \(file) cannot be read (alerts.secrets_file)")
        }
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            guard trimmed[..<equals].trimmingCharacters(in: .whitespaces) == name else { continue }
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
