import BridgetDTOs
import BridgetPersistence
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
                try statement.execute(arguments: [flow.bridgeID, try StoredTimestamp.text(flow.timestamp), flow.congestionLevel,
                                                  flow.trafficVolume])
            }
        }
    }

    public func trafficFlows(bridgeID: String) async throws -> [TrafficFlowDTO] {
        try await read("read traffic flows") { db in
            // A cursor, not fetchAll: years of hourly rows as GRDB rows would cost several times the flows themselves.
            let rows = try Row.fetchCursor(db, sql: """
                SELECT observed_at, congestion, volume FROM traffic_flows WHERE bridge_id = ? ORDER BY observed_at
                """, arguments: [bridgeID])
            var flows: [TrafficFlowDTO] = []
            while let row = try rows.next() {
                guard let instant = StoredTimestamp.date(row[0]) else { continue }
                flows.append(TrafficFlowDTO(bridgeID: bridgeID, timestamp: instant, congestionLevel: row[1],
                                            trafficVolume: row[2]))
            }
            return flows
        }
    }
}
