import Foundation

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
