import Foundation

/// What names the data a store holds: the kind of source (`socrata`, `ndw`, `sample`) and what, within that kind,
/// tells one body of data from another (a dataset and its origin, a feed, a seed and shape). Two configurations
/// that name the same source write the same history; any other pair must not share a store.
public struct SourceIdentity: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The kind of source, e.g. `socrata`.
    public let kind: String
    /// What names the data within its kind, e.g. `dataset gm8h-9449 at https://data.seattle.gov`.
    public let name: String

    /// Creates an identity; both parts are kept as given, less surrounding white space.
    public init(kind: String, name: String) {
        self.kind = kind.trimmingCharacters(in: .whitespacesAndNewlines)
        self.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `kind name`, as messages show it.
    public var description: String { "\(kind) \(name)" }
}

/// The identity a store records, and when it was recorded.
public struct RecordedSource: Sendable, Codable, Equatable {
    public let identity: SourceIdentity
    public let recordedAt: Date

    /// Creates a record.
    public init(identity: SourceIdentity, recordedAt: Date) {
        self.identity = identity
        self.recordedAt = recordedAt
    }
}

/// What a claim of a store's source found.
public enum SourceClaim: Sendable, Equatable {
    /// The store held no data and no identity: it now records the claimed one.
    case recorded
    /// The store held data but no identity (made before stores recorded one): it now records the claimed one.
    case adopted
    /// The store already records the claimed identity.
    case same
    /// The store records another identity; nothing was changed.
    case other(RecordedSource)
}

/// Where a store records the source of its data, so that a sync or import from another source is refused before it
/// writes anything.
///
/// An implementation must guarantee: `claimSource` is atomic across every process sharing the store (two claims
/// of different identities on a store without one: one records, the other gets `.other`); it records the identity
/// when none is recorded (`.recorded` when the store holds no opening, `.adopted` when it does) and changes nothing
/// otherwise; `recordedSource` reads what is recorded, `nil` before any claim.
public protocol SourceIdentityStore: Sendable {
    /// The recorded identity, if any.
    func recordedSource() async throws -> RecordedSource?
    /// Records `identity` unless the store already records one; says which.
    func claimSource(_ identity: SourceIdentity, at now: Date) async throws -> SourceClaim
}
