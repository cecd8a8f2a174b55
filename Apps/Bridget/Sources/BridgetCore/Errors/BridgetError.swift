import Foundation

/// The CLI's own failures (the configuration, the arguments, the files it reads and writes): a category, a stable
/// code, a sentence a user can act on, and a hint.
///
/// The packages throw their own errors with their facts (`CacheError`, `FeedError`, `StoreError`, `AnalysisError`);
/// `ErrorPresentation` turns those and this one into what each front end shows (exit status, HTTP problem).
package struct BridgetError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The broad kind of failure (`ErrorCode.category`).
    package enum Category: String, Sendable, Codable, CaseIterable {
        /// Reaching or talking to a data source failed.
        case network
        /// Stored or received data is unusable (corrupt file, undecodable body, storage failure).
        case data
        /// Computing a result failed.
        case processing
        /// A value the user gave is invalid (an unknown bridge, a bad date).
        case validation
        /// The configuration is invalid.
        case configuration
    }

    /// What failed, as a stable code (`ErrorCode`): its exit status and HTTP status are the error table's row.
    package let kind: ErrorCode
    /// What happened and where.
    package let message: String
    /// What to do about it, when there is something to do.
    package let hint: String?
    /// The argument or parameter the error is about, as the front end named it (`--at`, `at`), when there is one.
    package let parameter: String?

    /// Creates an error.
    package init(_ kind: ErrorCode, _ message: String, hint: String? = nil, parameter: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
        self.parameter = parameter
    }

    /// The code as text, e.g. `config.unknown-key`.
    package var code: String { kind.rawValue }

    /// The broad kind of failure.
    package var category: Category { kind.category }

    /// The process exit status: the error table's row for the code.
    package var exitCode: Int32 { ErrorTable.disposition(of: self).exitCode }

    package var description: String {
        guard let hint else { return message }
        return "\(message)\nhint: \(hint)"
    }

    /// The same error, about `parameter` (the argument or query parameter whose value it judges).
    package func about(_ parameter: String) -> BridgetError {
        BridgetError(kind, message, hint: hint, parameter: parameter)
    }
}
