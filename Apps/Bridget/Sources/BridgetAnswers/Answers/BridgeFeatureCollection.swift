import Foundation

/// The bridges as a GeoJSON FeatureCollection (RFC 7946): one Point a bridge at its stored position, longitude
/// first, with its id, names, waterway, kind, openings (as `stats` counts them), stored rows and last opening as
/// properties, for a map of the user's own (`bridget bridges --format geojson`, `GET /v1/bridges?format=geojson`).
package struct BridgeFeatureCollection: Encodable, Sendable {
    package struct Feature: Encodable, Sendable {
        package struct Point: Encodable, Sendable {
            package let type = "Point"
            /// `[longitude, latitude]`, WGS 84, as RFC 7946 orders them.
            package let coordinates: [Double]
        }

        package struct Properties: Encodable, Sendable {
            package let id: String
            package let name: String
            package let displayName: String
            package let waterway: String
            package let kind: String
            package let openings: Int
            package let rows: Int
            package let lastOpening: Date?
        }

        package let type = "Feature"
        package let id: String
        package let geometry: Point
        package let properties: Properties
    }

    package let type = "FeatureCollection"
    package let features: [Feature]

    package init(_ listing: [BridgeListing]) {
        features = listing.map { item in
            let bridge = item.bridge
            return Feature(
                id: bridge.id, geometry: Feature.Point(coordinates: [bridge.longitude, bridge.latitude]),
                properties: Feature.Properties(
                    id: bridge.id, name: bridge.name, displayName: bridge.displayName, waterway: bridge.waterway,
                    kind: bridge.kind, openings: item.openings, rows: item.rows, lastOpening: item.lastOpening))
        }
    }

    /// The media type of GeoJSON.
    package static let mediaType = "application/geo+json"
}
