import Foundation

/// The CLI's own failures (the configuration, the arguments, the files it reads and writes): a category, a stable
/// code, a sentence a user can act on, and a hint.
///
/// The packages throw their own errors with their facts (`CacheError`, `FeedError`, `StoreError`, `AnalysisError`);
/// `ErrorPresentation` turns those and this one into what each front end shows (exit status, HTTP problem).
package struct BridgetError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The broad kind of failure.
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

        /// The default exit status for the category.
        package var exitCode: Int32 {
            switch self {
            case .network: 69 // EX_UNAVAILABLE
            case .data: 65 // EX_DATAERR
            case .processing: 70 // EX_SOFTWARE
            case .validation: 64 // EX_USAGE
            case .configuration: 78 // EX_CONFIG
            }
        }
    }

    /// The broad kind of failure.
    package let category: Category
    /// A stable machine-readable code, e.g. `config.unknown-key`.
    package let code: String
    /// What happened and where.
    package let message: String
    /// What to do about it, when there is something to do.
    package let hint: String?
    /// The process exit status to use.
    package let exitCode: Int32
    /// The argument or parameter the error is about, as the front end named it (`--at`, `at`), when there is one.
    package let parameter: String?

    /// Creates an error.
    package init(_ category: Category, code: String, _ message: String, hint: String? = nil, exitCode: Int32? = nil,
                 parameter: String? = nil) {
        self.category = category
        self.code = code
        self.message = message
        self.hint = hint
        self.exitCode = exitCode ?? category.exitCode
        self.parameter = parameter
    }

    package var description: String {
        guard let hint else { return message }
        return "\(message)\nhint: \(hint)"
    }

    /// A configuration error (exit 78).
    package static func configuration(_ code: String, _ message: String, hint: String? = nil) -> BridgetError {
        BridgetError(.configuration, code: "config.\(code)", message, hint: hint)
    }

    /// A validation error for user input (exit 64).
    package static func validation(_ code: String, _ message: String, hint: String? = nil, parameter: String? = nil)
        -> BridgetError
    {
        BridgetError(.validation, code: "input.\(code)", message, hint: hint, parameter: parameter)
    }

    /// A data or storage error (exit 65, or 74 for I/O).
    package static func data(_ code: String, _ message: String, hint: String? = nil, exitCode: Int32? = nil)
        -> BridgetError
    {
        BridgetError(.data, code: "data.\(code)", message, hint: hint, exitCode: exitCode)
    }

    /// A network error (exit 69).
    package static func network(_ code: String, _ message: String, hint: String? = nil) -> BridgetError {
        BridgetError(.network, code: "network.\(code)", message, hint: hint)
    }

    /// A processing error (exit 70).
    package static func processing(_ code: String, _ message: String, hint: String? = nil) -> BridgetError {
        BridgetError(.processing, code: "processing.\(code)", message, hint: hint)
    }

    /// The same error, about `parameter` (the argument or query parameter whose value it judges).
    package func about(_ parameter: String) -> BridgetError {
        BridgetError(category, code: code, message, hint: hint, exitCode: exitCode, parameter: parameter)
    }
}
