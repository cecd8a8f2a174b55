import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

extension PostgresBridgeStore: OpeningModelStore {
    public func saveOpeningModels(_ models: [OpeningModelDTO]) async throws {
        try await transaction("save opening models") { connection in
            if let orphan = try await unknownBridge(Array(Set(models.map(\.bridgeID))).sorted(), connection) {
                throw StoreError.orphan(.model, bridgeID: orphan)
            }
            try await connection.query("DELETE FROM opening_models", logger: logger)
            for model in models {
                let slots = model.slots
                try await connection.query("""
                    INSERT INTO opening_models (bridge_id, built_ms, first_day, last_day, openings, source_events,
                        source_latest_ms, base_start_probability, base_open_probability, month_factors, source_version,
                        slot_starts, slot_occurrences, slot_start_probability, slot_open_probability, slot_mean_remaining,
                        dynamics)
                    VALUES (\(model.bridgeID), \(try Self.milliseconds(model.builtAt)), \(model.firstDay)::text,
                        \(model.lastDay)::text, \(Int64(model.openings)), \(Int64(model.sourceEvents)),
                        \(model.sourceLatestOpening.map { try Self.milliseconds($0) })::bigint, \(model.baseStartProbability),
                        \(model.baseOpenProbability), \(model.monthFactors), \(model.sourceVersion),
                        \(slots.map { Int64($0.starts) }), \(slots.map { Int64($0.occurrences) }),
                        \(slots.map(\.startProbability)), \(slots.map(\.openProbability)),
                        \(slots.map(\.meanRemainingMinutes)),
                        \(String(decoding: try JSONEncoder().encode(model.dynamics), as: UTF8.self)))
                    """, logger: logger)
            }
        }
    }

    public func openingModels(bridgeIDs: [String]) async throws -> [OpeningModelDTO] {
        let wanted = Array(Set(bridgeIDs)).sorted()
        guard !wanted.isEmpty else { return [] }
        let rows = try await rows("read opening models", """
            SELECT bridge_id, built_ms, first_day, last_day, openings, source_events, source_latest_ms,
                   base_start_probability, base_open_probability, month_factors, source_version, slot_starts,
                   slot_occurrences, slot_start_probability, slot_open_probability, slot_mean_remaining, dynamics
            FROM opening_models WHERE bridge_id = ANY(\(wanted)::text[]) ORDER BY bridge_id
            """)
        return try rows.map { row in
            let bridgeID = try row[0].decode(String.self)
            let starts = try row[11].decode([Int64].self), occurrences = try row[12].decode([Int64].self)
            let start = try row[13].decode([Double].self), open = try row[14].decode([Double].self)
            let remaining = try row[15].decode([Double].self)
            guard [occurrences.count, start.count, open.count, remaining.count].allSatisfy({ $0 == starts.count }),
                  starts.count == OpeningModelDTO.slotsPerWeek
            else {
                throw StoreError.corruptModel(bridgeID: bridgeID, slots: starts.count)
            }
            let slots = starts.indices.map { index in
                OpeningSlotDTO(starts: Int(starts[index]), occurrences: Int(occurrences[index]),
                               startProbability: start[index], openProbability: open[index],
                               meanRemainingMinutes: remaining[index])
            }
            return OpeningModelDTO(
                bridgeID: bridgeID, builtAt: Self.date(milliseconds: try row[1].decode(Int64.self)),
                firstDay: try row[2].decode(String?.self), lastDay: try row[3].decode(String?.self),
                openings: Int(try row[4].decode(Int64.self)), sourceEvents: Int(try row[5].decode(Int64.self)),
                sourceLatestOpening: try row[6].decode(Int64?.self).map(Self.date(milliseconds:)),
                baseStartProbability: try row[7].decode(Double.self), baseOpenProbability: try row[8].decode(Double.self),
                slots: slots, monthFactors: try row[9].decode([Double].self), sourceVersion: try row[10].decode(Int64.self),
                dynamics: try row[16].decode(String?.self).flatMap {
                    try? JSONDecoder().decode(OpeningDynamicsDTO.self, from: Data($0.utf8)) }.flatMap {
                    $0.isSound ? $0 : nil } ?? .none)
        }
    }
}
