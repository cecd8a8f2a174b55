import BridgetPersistence
import Foundation

/// The bridges as a GeoJSON FeatureCollection (RFC 7946): one Point a bridge at its stored position, longitude
/// first, with its id, names, waterway, kind, stored rows and last opening as properties, for a map of the user's
/// own (`bridget bridges --format geojson`, `GET /v1/bridges?format=geojson`).
struct BridgeFeatureCollection: Encodable, Sendable {
    struct Feature: Encodable, Sendable {
        struct Point: Encodable, Sendable {
            let type = "Point"
            /// `[longitude, latitude]`, WGS 84, as RFC 7946 orders them.
            let coordinates: [Double]
        }

        struct Properties: Encodable, Sendable {
            let id: String
            let name: String
            let displayName: String
            let waterway: String
            let kind: String
            let openings: Int
            let lastOpening: Date?
        }

        let type = "Feature"
        let id: String
        let geometry: Point
        let properties: Properties
    }

    let type = "FeatureCollection"
    let features: [Feature]

    init(_ activity: [BridgeActivity]) {
        features = activity.map { item in
            let bridge = item.bridge
            return Feature(
                id: bridge.id, geometry: Feature.Point(coordinates: [bridge.longitude, bridge.latitude]),
                properties: Feature.Properties(
                    id: bridge.id, name: bridge.name, displayName: bridge.displayName, waterway: bridge.waterway,
                    kind: bridge.kind, openings: item.openings, lastOpening: item.lastOpening))
        }
    }

    /// The media type of GeoJSON.
    static let mediaType = "application/geo+json"
}
