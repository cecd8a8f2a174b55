import Crypto
import Foundation

/// How a webhook message is signed: as the Standard Webhooks specification says, so a receiver verifies it with the
/// library it already has. Each message carries `webhook-id` (its event id, the same on every attempt),
/// `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of
/// `id.timestamp.body` under the secret's key, once per key while a secret is rotated (space separated). A receiver
/// computes the same, compares in constant time and refuses a timestamp far from its clock (a replay).
package enum WebhookSignature {
    /// The `webhook-signature` header: one `v1,<base64>` per key.
    package static func header(keys: [[UInt8]], id: String, timestamp: Int, body: Data) -> String {
        keys.map { "v1," + signature(key: $0, id: id, timestamp: timestamp, body: body) }.joined(separator: " ")
    }

    /// One signature, base64.
    package static func signature(key: [UInt8], id: String, timestamp: Int, body: Data) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: signed(id: id, timestamp: timestamp, body: body),
                                             using: SymmetricKey(data: key))).base64EncodedString()
    }

    /// Whether one of the header's `v1` signatures signs the message with `key`: what a receiver checks.
    package static func verify(_ header: String, key: [UInt8], id: String, timestamp: Int, body: Data) -> Bool {
        let content = signed(id: id, timestamp: timestamp, body: body)
        return header.split(separator: " ").contains { part in
            guard part.hasPrefix("v1,"), let given = Data(base64Encoded: String(part.dropFirst(3))) else { return false }
            return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: content, using: SymmetricKey(data: key))
        }
    }

    private static func signed(id: String, timestamp: Int, body: Data) -> Data {
        var content = Data("\(id).\(timestamp).".utf8)
        content.append(body)
        return content
    }
}
