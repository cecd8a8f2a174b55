import Foundation

/// A request body read as the API's schemas say (`additionalProperties: false`): JSON whose objects name each key
/// once and only the keys their schema has. Foundation's parser reads the values; a one-pass scan finds a key given
/// twice, which it would keep silently (the last one winning).
enum StrictJSON {
    /// Why a body is not what the endpoint takes, as a sentence naming the place (`crossings[0].bridgeIDs`).
    struct Refusal: Error {
        let reason: String
    }

    /// The top value of `data`: JSON, with no object naming a key twice.
    static func parse(_ data: Data) throws -> Any {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw Refusal(reason: "it is not JSON")
        }
        if let (key, path) = firstRepeatedKey(in: Array(data)) {
            throw Refusal(reason: "\(path.isEmpty ? "the body" : path) names '\(key)' twice")
        }
        return value
    }

    /// `value` as an object with only the keys in `allowed`, or a refusal naming `place` and the first other key.
    static func object(_ value: Any, at place: String, allowed: [String]) throws -> [String: Any] {
        guard let object = value as? [String: Any] else { throw Refusal(reason: "\(place) must be an object") }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw Refusal(reason: "\(place) has no field '\(unknown)'; it takes " + allowed.joined(separator: ", "))
        }
        return object
    }

    /// The first key an object of the (syntactically valid) JSON `bytes` gives twice, with the object's place.
    static func firstRepeatedKey(in bytes: [UInt8]) -> (key: String, path: String)? {
        // A stack of containers: an object's keys so far, or an array's index, with the place it is at.
        enum Container {
            case object(keys: Set<String>, path: String)
            case array(index: Int, path: String)
        }
        var stack: [Container] = []
        var index = 0
        var expectingKey = false
        var lastKey: String?
        func placeOfChild() -> String {
            switch stack.last {
            case .object(_, let path)?: lastKey.map { path.isEmpty ? $0 : path + "." + $0 } ?? path
            case .array(let index, let path)?: path + "[\(index)]"
            case nil: ""
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], path: placeOfChild()))
                expectingKey = true
            case UInt8(ascii: "["):
                stack.append(.array(index: 0, path: placeOfChild()))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                stack.removeLast()
                expectingKey = false
            case UInt8(ascii: ","):
                if case .array(let count, let path)? = stack.last {
                    stack[stack.count - 1] = .array(index: count + 1, path: path)
                } else {
                    expectingKey = true
                }
            case UInt8(ascii: "\""):
                var end = index + 1
                var text: [UInt8] = []
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") { text.append(bytes[end]); end += 1 }
                    if end < bytes.count { text.append(bytes[end]) }
                    end += 1
                }
                if expectingKey, case .object(var keys, let path)? = stack.last {
                    // The key as JSON reads it (escapes resolved), so "a" and "\u0061" are the same key.
                    let raw = "\"" + String(decoding: text, as: UTF8.self) + "\""
                    let key = (try? JSONSerialization.jsonObject(with: Data(raw.utf8), options: .fragmentsAllowed))
                        as? String ?? String(decoding: text, as: UTF8.self)
                    guard keys.insert(key).inserted else { return (key, path) }
                    stack[stack.count - 1] = .object(keys: keys, path: path)
                    lastKey = key
                    expectingKey = false
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }
}

extension StrictJSON {
    /// A decoding error in a sentence: the field and what was wrong.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it is not JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
            return text.isEmpty ? "the body" : String(text.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context)).\(key.stringValue) is missing".replacingOccurrences(of: "the body.", with: "")
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON" : "\(path(context)) is not valid"
        @unknown default: return "it is not JSON"
        }
    }
}
