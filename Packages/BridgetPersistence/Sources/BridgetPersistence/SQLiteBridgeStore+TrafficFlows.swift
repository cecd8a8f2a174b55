import BridgetDTOs
import Foundation
import GRDB

extension SQLiteBridgeStore: TrafficFlowStore {
    public func upsertTrafficFlows(_ flows: [TrafficFlowDTO]) async throws {
        guard !flows.isEmpty else { return }
        try await write("save traffic flows") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO traffic_flows (bridge_id, observed_at, congestion, volume) VALUES (?, ?, ?, ?)
                """)
            for flow in flows {
                try statement.execute(arguments: [flow.bridgeID, StoredTimestamp.text(flow.timestamp), flow.congestionLevel,
                                                  flow.trafficVolume])
            }
        }
    }

    public func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
        try await read("read traffic flows") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM traffic_flows WHERE bridge_id = ? ORDER BY observed_at",
                             arguments: [bridgeID]).compactMap { row in
                guard let instant = StoredTimestamp.date(row["observed_at"]) else { return nil }
                return TrafficFlowDTO(bridgeID: row["bridge_id"], timestamp: instant, congestionLevel: row["congestion"],
                                      trafficVolume: row["volume"])
            }
        }
    }
}
