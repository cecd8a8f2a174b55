import Crypto
import Foundation

/// How a webhook message is signed, as GitHub and Stripe sign theirs: HMAC-SHA256 with the alert's secret over
/// `TIMESTAMP.BODY`, sent as `Bridget-Signature: t=TIMESTAMP,v1=HEX` beside `Bridget-Timestamp`. A receiver computes
/// the same over the body it got and the timestamp in the header, compares in constant time, and refuses an old
/// timestamp (a replay).
package enum WebhookSignature {
    /// The header value for `body` sent at `timestamp` (Unix seconds).
    package static func header(secret: String, timestamp: Int, body: Data) -> String {
        "t=\(timestamp),v1=" + hex(secret: secret, timestamp: timestamp, body: body)
    }

    /// The signature's hex digits.
    package static func hex(secret: String, timestamp: Int, body: Data) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `header` signs `body` with `secret`: what a receiver checks (the tests' receiver does).
    package static func verify(_ header: String, secret: String, body: Data) -> Bool {
        var timestamp: Int?
        var given: String?
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int(pair[1]) }
            if pair[0] == "v1" { given = pair[1] }
        }
        guard let timestamp, let given, let expected = Data(hexDigits: hex(secret: secret, timestamp: timestamp, body: body)),
              let actual = Data(hexDigits: given)
        else { return false }
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        return HMAC<SHA256>.isValidAuthenticationCode(actual, authenticating: signed,
                                                      using: SymmetricKey(data: Data(secret.utf8)))
            && expected.count == actual.count
    }
}

extension Data {
    /// Bytes from hex digits; `nil` for anything else.
    init?(hexDigits text: String) {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
