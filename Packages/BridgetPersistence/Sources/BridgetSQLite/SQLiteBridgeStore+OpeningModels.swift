import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB

extension SQLiteBridgeStore: OpeningModelStore {
    public func saveOpeningModels(_ models: [OpeningModelDTO]) async throws {
        try await write("save opening models") { db in
            try db.execute(sql: "DELETE FROM opening_models")
            let model = try db.cachedStatement(sql: """
                INSERT INTO opening_models (bridge_id, built_at, first_day, last_day, openings, source_events,
                    source_latest_opening, base_start_probability, base_open_probability, month_factors, source_version,
                    dynamics)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let slot = try db.cachedStatement(sql: """
                INSERT INTO opening_model_slots (bridge_id, slot, starts, occurrences, start_probability,
                    open_probability, mean_remaining_minutes) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for entry in models {
                try model.execute(arguments: [
                    entry.bridgeID, try StoredTimestamp.text(entry.builtAt), entry.firstDay, entry.lastDay, entry.openings,
                    entry.sourceEvents, entry.sourceLatestOpening.map { try StoredTimestamp.text($0) }, entry.baseStartProbability,
                    entry.baseOpenProbability,
                    String(decoding: try JSONEncoder.sorted.encode(entry.monthFactors), as: UTF8.self),
                    entry.sourceVersion,
                    String(decoding: try JSONEncoder.sorted.encode(entry.dynamics), as: UTF8.self),
                ])
                for (index, figures) in entry.slots.enumerated() {
                    try slot.execute(arguments: [
                        entry.bridgeID, index, figures.starts, figures.occurrences, figures.startProbability,
                        figures.openProbability, figures.meanRemainingMinutes,
                    ])
                }
            }
        }
    }

    public func openingModels(bridgeIDs: [String]) async throws -> [OpeningModelDTO] {
        let wanted = Array(Set(bridgeIDs)).sorted()
        guard !wanted.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: wanted.count).joined(separator: ", ")
        return try await read("read opening models") { db in
            var slotsByBridge: [String: [OpeningSlotDTO]] = [:]
            // By column index, one query for every bridge: this runs in every predict and route score.
            let slots = try Row.fetchCursor(db, sql: """
                SELECT bridge_id, starts, occurrences, start_probability, open_probability, mean_remaining_minutes
                FROM opening_model_slots WHERE bridge_id IN (\(marks)) ORDER BY bridge_id, slot
                """, arguments: StatementArguments(wanted))
            while let row = try slots.next() {
                slotsByBridge[row[0], default: []].append(OpeningSlotDTO(
                    starts: row[1], occurrences: row[2], startProbability: row[3], openProbability: row[4],
                    meanRemainingMinutes: row[5]))
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM opening_models WHERE bridge_id IN (\(marks)) ORDER BY bridge_id",
                                    arguments: StatementArguments(wanted)).map { row in
                let bridgeID: String = row["bridge_id"]
                let slots = slotsByBridge[bridgeID] ?? []
                guard slots.count == OpeningModelDTO.slotsPerWeek else {
                    throw StoreError.corruptModel(bridgeID: bridgeID, slots: slots.count)
                }
                return OpeningModelDTO(
                    bridgeID: bridgeID, builtAt: StoredTimestamp.date(row["built_at"]) ?? Date(timeIntervalSince1970: 0),
                    firstDay: row["first_day"], lastDay: row["last_day"], openings: row["openings"],
                    sourceEvents: row["source_events"],
                    sourceLatestOpening: (row["source_latest_opening"] as String?).flatMap(StoredTimestamp.date),
                    baseStartProbability: row["base_start_probability"], baseOpenProbability: row["base_open_probability"],
                    slots: slots,
                    monthFactors: (try? JSONDecoder().decode([Double].self, from: Data((row["month_factors"] as String).utf8)))
                        ?? Array(repeating: 1, count: 12),
                    sourceVersion: row["source_version"],
                    dynamics: (row["dynamics"] as String?).flatMap {
                        try? JSONDecoder().decode(OpeningDynamicsDTO.self, from: Data($0.utf8)) }.flatMap {
                        $0.isSound ? $0 : nil } ?? .none)
            }
        }
    }
}
