import BridgetCore
import Hummingbird

/// A request's query parameters, in order (a name may repeat).
package struct Query: Sendable {
    package let pairs: [(String, String)]

    package init(_ request: Request) {
        pairs = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
    }

    /// The first value of `name`.
    package subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// Every value of `name`, in order.
    package func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// A whole number in `range`, `fallback` when absent, else a 400 naming the parameter.
    package func integer(_ name: String, in range: ClosedRange<Int>, fallback: Int, meaning: String = "") throws -> Int {
        guard let text = self[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw Problem.badParameter(name, "'\(text)' is not a whole number from \(range.lowerBound)"
                                       + "\(meaning) to \(range.upperBound)")
        }
        return value
    }
}

extension Request {
    /// The path parameter `name`, percent-decoded (`Lower%20Spokane%20St`), or a 400 naming the path segment when its
    /// escapes are not UTF-8 text.
    package func pathParameter(_ name: String, in context: some RequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        if !raw.utf8.contains(UInt8(ascii: "%")) { return raw }
        guard let decoded = raw.removingPercentEncoding else {
            throw Problem.badPath(name, "'\(raw)' holds a percent escape that is not UTF-8 text")
        }
        return decoded
    }
}
