import Foundation

/// The outcome of one request to a data source, for logs and diagnostics (never carries credentials).
public struct NetworkResponseDTO: Sendable, Codable, Equatable {
    /// Whether the request produced usable data.
    public let success: Bool
    /// HTTP status, when the source is HTTP.
    public let statusCode: Int?
    /// Body size in bytes.
    public let byteCount: Int
    /// A readable error, when it failed.
    public let error: String?
    /// When the response arrived.
    public let timestamp: Date
    /// The endpoint, without any token.
    public let endpoint: String

    /// Creates a response record.
    public init(
        success: Bool, statusCode: Int? = nil, byteCount: Int = 0, error: String? = nil, timestamp: Date,
        endpoint: String
    ) {
        self.success = success
        self.statusCode = statusCode
        self.byteCount = byteCount
        self.error = error
        self.timestamp = timestamp
        self.endpoint = endpoint
    }
}

/// Whether a provider can currently be reached.
public struct ConnectionStatusDTO: Sendable, Codable, Equatable {
    /// True when the provider answered.
    public let isReachable: Bool
    /// What was checked and what was found.
    public let detail: String

    /// Creates a status.
    public init(isReachable: Bool, detail: String) {
        self.isReachable = isReachable
        self.detail = detail
    }
}
