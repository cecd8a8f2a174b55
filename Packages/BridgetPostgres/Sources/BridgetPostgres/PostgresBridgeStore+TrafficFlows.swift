import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

extension PostgresBridgeStore: TrafficFlowStore {
    public func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) async throws {
        guard !flows.isEmpty else { return }
        try await transaction("save traffic flows") { connection in
            if let orphan = try await unknownBridge(Array(Set(flows.map(\.bridgeID))).sorted(), connection) {
                throw StoreError.orphan(.traffic, bridgeID: orphan)
            }
            // The last of a (bridge, instant) given twice wins, as row-by-row replacing would have it.
            var latest: [String: TrafficFlowDTO] = [:]
            for flow in flows { latest["\(flow.bridgeID) \(try Self.milliseconds(flow.timestamp))"] = flow }
            let unique = Array(latest.values)
            try await connection.query("""
                INSERT INTO traffic_flows (bridge_id, observed_ms, congestion, volume)
                SELECT * FROM unnest(\(unique.map(\.bridgeID))::text[], \(unique.map { try Self.milliseconds($0.timestamp) })::int8[],
                                     \(unique.map(\.congestionLevel))::float8[], \(unique.map { Int64($0.trafficVolume) })::int8[])
                ON CONFLICT (bridge_id, observed_ms) DO UPDATE SET congestion = excluded.congestion, volume = excluded.volume
                """, logger: logger)
        }
    }

    public func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
        try await withConnection("read traffic flows") { connection in
            // Decoded as they arrive: years of hourly rows held as rows would cost several times the flows.
            var flows: [TrafficFlowDTO] = []
            let rows = try await connection.query("""
                SELECT observed_ms, congestion, volume FROM traffic_flows WHERE bridge_id = \(bridgeID)
                ORDER BY observed_ms
                """, logger: logger)
            for try await (observed, congestion, volume) in rows.decode((Int64, Double, Int64).self) {
                flows.append(TrafficFlowDTO(bridgeID: bridgeID, timestamp: Self.date(milliseconds: observed),
                                            congestionLevel: congestion, trafficVolume: Int(volume)))
            }
            return flows
        }
    }
}
