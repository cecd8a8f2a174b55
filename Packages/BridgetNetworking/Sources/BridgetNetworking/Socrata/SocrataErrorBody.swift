import Foundation

/// Reads the server's message out of any of Socrata's error-body shapes:
/// `{"code":…,"error":true,"message":…}`, `{"message":…,"errorCode":…}`, `{"message":…,"error":true}`,
/// and falls back to the start of a non-JSON body (an HTML error page).
public enum SocrataErrorBody {
    /// A one-line message, with the error code when the body has one; `nil` for an empty body.
    public static func message(from body: Data) -> String? {
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            let message = (object["message"] as? String) ?? (object["error"] as? String)
            let code = (object["errorCode"] as? String) ?? (object["code"] as? String)
            switch (message, code) {
            case let (message?, code?): return "\(message) (\(code))"
            case let (message?, nil): return message
            case let (nil, code?): return code
            case (nil, nil): break
            }
        }
        // A binary body (a gzip file, an image) is described, not printed: its bytes mean nothing to a reader.
        let head = body.prefix(400)
        if head.contains(where: { $0 < 0x09 || (0x0E..<0x20).contains($0) || $0 == 0x7F }) {
            return "(\(body.count) bytes of binary data)"
        }
        let text = String(decoding: head, as: UTF8.self)
            .replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !text.isEmpty else { return nil }
        return String(text.prefix(160))
    }
}
