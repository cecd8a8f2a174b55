import Foundation

/// The set of bridges a dataset covers, with lookups by id.
public struct BridgeCatalog: Sendable, Equatable {
    /// The bridges, ordered by numeric id.
    public let bridges: [BridgeInfoDTO]
    private let byID: [String: BridgeInfoDTO]

    /// Creates a catalog; later duplicates of an id are ignored.
    public init(bridges: [BridgeInfoDTO]) {
        var seen: [String: BridgeInfoDTO] = [:]
        var ordered: [BridgeInfoDTO] = []
        for bridge in bridges where seen[bridge.id] == nil {
            seen[bridge.id] = bridge
            ordered.append(bridge)
        }
        self.bridges = ordered.sorted { (Int($0.id) ?? .max, $0.id) < (Int($1.id) ?? .max, $1.id) }
        self.byID = seen
    }

    /// The bridge with this id (Socrata's `entityid`, NDW's location code), if known.
    public func bridge(id: String) -> BridgeInfoDTO? { byID[id] }

    /// Finds a bridge by id, dataset name or display name, ignoring case ("fremont", "3", "Fremont Bridge").
    public func resolve(_ text: String) -> BridgeInfoDTO? {
        if let exact = byID[text] { return exact }
        let needle = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let exact = byID[needle] { return exact }
        return bridges.first { $0.name.lowercased() == needle || $0.displayName.lowercased() == needle }
    }

    /// The seven Seattle bridges of the SDOT Drawbridge Status dataset (gm8h-9449), with the coordinates it carries.
    public static let seattle = BridgeCatalog(bridges: [
        BridgeInfoDTO(id: "1", name: "1st Ave South", displayName: "First Avenue South Bridge",
                      latitude: 47.542213439941406, longitude: -122.33446502685547,
                      waterway: "Duwamish Waterway", kind: "bascule"),
        BridgeInfoDTO(id: "2", name: "Ballard", displayName: "Ballard Bridge",
                      latitude: 47.65981674194336, longitude: -122.37619018554688,
                      waterway: "Lake Washington Ship Canal", kind: "bascule"),
        BridgeInfoDTO(id: "3", name: "Fremont", displayName: "Fremont Bridge",
                      latitude: 47.64760208129883, longitude: -122.3497314453125,
                      waterway: "Lake Washington Ship Canal", kind: "bascule"),
        BridgeInfoDTO(id: "4", name: "Montlake", displayName: "Montlake Bridge",
                      latitude: 47.64728546142578, longitude: -122.3045883178711,
                      waterway: "Montlake Cut (Ship Canal)", kind: "bascule"),
        BridgeInfoDTO(id: "6", name: "Lower Spokane St", displayName: "Lower Spokane Street Bridge",
                      latitude: 47.57137680053711, longitude: -122.35354614257812,
                      waterway: "Duwamish West Waterway", kind: "swing"),
        BridgeInfoDTO(id: "21", name: "University", displayName: "University Bridge",
                      latitude: 47.652652740478516, longitude: -122.32042694091797,
                      waterway: "Portage Bay (Ship Canal)", kind: "bascule"),
        BridgeInfoDTO(id: "29", name: "South Park", displayName: "South Park Bridge",
                      latitude: 47.52923583984375, longitude: -122.31411743164062,
                      waterway: "Duwamish Waterway", kind: "bascule"),
    ])
}
