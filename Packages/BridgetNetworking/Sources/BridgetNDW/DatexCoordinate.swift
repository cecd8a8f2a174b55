/// A WGS84 position from a DATEX II location (`pointByCoordinates` or `locationForDisplay`).
public struct DatexCoordinate: Sendable, Hashable {
    /// Degrees north, −90…90.
    public let latitude: Double
    /// Degrees east, −180…180.
    public let longitude: Double

    /// Creates a position; `nil` when a value is not finite or out of range.
    public init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }
}
