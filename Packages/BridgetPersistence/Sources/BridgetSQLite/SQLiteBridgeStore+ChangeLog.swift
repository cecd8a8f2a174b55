import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB

/// The change log's statements, run inside the writes of events.
enum ChangeLogSQL {
    /// `INSERT`s of one change of each kind, bound like the events upsert (`EventRowBinding`): the kind and the
    /// batch's time are in the text (prepared once a batch, not kept: a time is never asked for twice).
    struct AppendStatements {
        private let byKind: [Statement]

        init(_ db: Database, at now: Date) throws {
            let milliseconds = try StoredInstant.milliseconds(now, "the change's time")
            byKind = try [OpeningChangeKind.new, .announced, .closed, .updated, .replaced, .withdrawn].map { kind in
                try db.makeStatement(sql: """
                    INSERT INTO change_log (recorded_ms, kind, bridge_id, opened_at, closed_at, status, record_id,
                                            record_version)
                    VALUES (\(milliseconds), '\(kind.rawValue)', ?1, ?2, ?5, ?11, ?12, ?13)
                    """)
            }
        }

        /// Found without an allocation: this is asked once a stored row.
        subscript(kind: OpeningChangeKind) -> Statement {
            switch kind {
            case .new: byKind[0]
            case .announced: byKind[1]
            case .closed: byKind[2]
            case .updated: byKind[3]
            case .replaced: byKind[4]
            case .withdrawn: byKind[5]
            }
        }

        var statements: [Statement] { byKind }
    }

    /// The newest number given, 0 before the first (pruning keeps the newest row).
    static func newest(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT max(seq) FROM change_log") ?? 0
    }

    static let columns =
        "seq, recorded_ms, kind, bridge_id, opened_at, closed_at, status, record_id, record_version, summary"

    /// Appends a write's summary of its changes to older openings (after the history version moved: the summary
    /// names the version that holds them).
    static func appendSummary(_ db: Database, _ tally: BulkChangeTally, at now: Date) throws {
        let version = try Int64.fetchOne(db, sql: "SELECT version FROM history_version") ?? 0
        try db.execute(sql: "INSERT INTO change_log (recorded_ms, kind, summary) VALUES (?, 'bulk', ?)",
                       arguments: [try StoredInstant.milliseconds(now, "the change's time"),
                                   try tally.stored(historyVersion: version).json()])
    }

    static func entry(_ row: Row) throws -> ChangeLogEntryDTO {
        let recorded: Int64 = row[1]
        let recordedAt = Date(timeIntervalSince1970: Double(recorded) / 1000)
        let kindText: String = row[2]
        if kindText == BulkChangeDTO.kindName {
            guard let summary = row[9] as String? else {
                throw StoreError.corruptEvent(detail: "a bulk entry without its summary in the change log")
            }
            return .bulk(try StoredBulkChange.entry(json: summary, sequence: row[0], recordedAt: recordedAt))
        }
        func instant(_ column: Int, _ name: String) throws -> Date {
            guard let text = row[column] as String?, let date = StoredTimestamp.date(text) else {
                throw StoreError.corruptEvent(detail: "an unreadable \(name) '\(row[column] as String? ?? "NULL")' in the change log")
            }
            return date
        }
        guard let kind = OpeningChangeKind(rawValue: kindText) else {
            throw StoreError.corruptEvent(detail: "an unknown change '\(kindText)' in the change log")
        }
        guard let bridgeID = row[3] as String? else {
            throw StoreError.corruptEvent(detail: "a change without its bridge in the change log")
        }
        let status = (row[6] as String?).flatMap(OpeningStatus.init(rawValue:)) ?? .observed
        return .opening(OpeningChangeDTO(
            sequence: row[0], recordedAt: recordedAt, kind: kind, bridgeID: bridgeID,
            openedAt: try instant(4, "opened_at"),
            closedAt: try (row[5] as String?).map { _ in try instant(5, "closed_at") }, status: status,
            recordID: row[7], recordVersion: row[8]))
    }
}

/// The outbox's statements, run inside the writes of events.
enum AlertOutboxSQL {
    /// Puts in the outbox the message of every alert that a change logged after `sequence` triggers (nothing to do,
    /// one cheap read, when no alert exists).
    static func enqueue(_ db: Database, changesAfter sequence: Int64) throws {
        let rules = try String.fetchAll(db, sql: "SELECT rule FROM alerts ORDER BY name").map(AlertRuleDTO.stored)
        guard !rules.isEmpty else { return }
        let now = Date()
        // Summaries are never matched: a backfill pages nobody.
        let changes = try Row.fetchAll(db, sql: """
            SELECT \(ChangeLogSQL.columns) FROM change_log WHERE seq > ? AND kind <> 'bulk' ORDER BY seq
            """, arguments: [sequence]).compactMap { try ChangeLogSQL.entry($0).opening }
        var names: [String: String] = [:]
        for change in changes {
            for rule in rules where rule.isTriggered(by: change, at: now) {
                let name: String
                if let known = names[change.bridgeID] {
                    name = known
                } else {
                    name = try String.fetchOne(db, sql: "SELECT display_name FROM bridges WHERE id = ?",
                                               arguments: [change.bridgeID]) ?? change.bridgeID
                    names[change.bridgeID] = name
                }
                let message = AlertMessageDTO(alert: rule.name, change: change, bridgeName: name, createdAt: now)
                try insert(db, message, at: now)
            }
        }
    }

    /// Inserts a message unless its event id is there; whether it was inserted.
    @discardableResult
    static func insert(_ db: Database, _ message: AlertMessageDTO, at now: Date) throws -> Bool {
        try db.execute(sql: """
            INSERT OR IGNORE INTO alert_outbox (event_id, alert, created_at, body, next_attempt_at)
            VALUES (?, ?, ?, ?, ?)
            """, arguments: [message.id, message.alert, try StoredTimestamp.text(now), try message.jsonBody(),
                             try StoredTimestamp.text(now)])
        return db.changesCount == 1
    }

    static let columns = "id, event_id, alert, created_at, body, state, attempts, next_attempt_at"

    static func entry(_ row: Row) -> AlertOutboxEntryDTO {
        AlertOutboxEntryDTO(
            id: row[0], eventID: row[1], alert: row[2],
            createdAt: StoredTimestamp.date(row[3]) ?? Date(timeIntervalSince1970: 0), body: row[4],
            state: AlertDeliveryState(rawValue: row[5]) ?? .pending, attempts: row[6],
            nextAttemptAt: StoredTimestamp.date(row[7]) ?? Date(timeIntervalSince1970: 0))
    }
}

extension SQLiteBridgeStore: ChangeLogStore {
    public func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) async throws -> [ChangeLogEntryDTO] {
        var sql = "SELECT \(ChangeLogSQL.columns) FROM change_log WHERE seq > ?"
        var arguments: StatementArguments = [sequence]
        if let bridgeIDs {
            // A summary is a bridge's when it counts the bridge.
            let bridges = String(decoding: try JSONEncoder().encode(bridgeIDs), as: UTF8.self)
            sql += """
                 AND (bridge_id IN (SELECT value FROM json_each(?))
                      OR (kind = 'bulk' AND EXISTS (SELECT 1 FROM json_each(summary, '$.bridgeIDs') AS b
                                                    WHERE b.value IN (SELECT value FROM json_each(?)))))
                """
            arguments += [bridges, bridges]
        }
        sql += " ORDER BY seq LIMIT ?"
        arguments += [max(limit, 0)]
        let (finalSQL, finalArguments) = (sql, arguments)
        return try await read("read the change log") { db in
            try Row.fetchAll(try db.cachedStatement(sql: finalSQL), arguments: finalArguments).map(ChangeLogSQL.entry)
        }
    }

    public func changeLogBounds() async throws -> ChangeLogBounds {
        try await read("read the change log") { db in
            ChangeLogBounds(oldest: try Int64.fetchOne(db, sql: "SELECT min(seq) FROM change_log"),
                            newest: try ChangeLogSQL.newest(db))
        }
    }

    public func pruneChanges(recordedBefore cutoff: Date) async throws -> Int {
        try await write("prune the change log") { db in
            // Times grow with the numbers: the first change at or after the cutoff is found by walking from the
            // oldest (no index on the time, which every import would pay for), and everything before it goes, the
            // newest excepted.
            try db.execute(sql: """
                DELETE FROM change_log
                WHERE seq < coalesce((SELECT seq FROM change_log WHERE recorded_ms >= ?1 ORDER BY seq LIMIT 1),
                                     (SELECT max(seq) FROM change_log))
                """, arguments: [try StoredInstant.milliseconds(cutoff, "the cutoff")])
            return db.changesCount
        }
    }

    public func withdrawAnnouncements(bridgeIDs: [String], keeping current: Set<String>) async throws -> Int {
        guard !bridgeIDs.isEmpty else { return 0 }
        let bridges = String(decoding: try JSONEncoder().encode(bridgeIDs), as: UTF8.self)
        let kept = String(decoding: try JSONEncoder().encode(current.sorted()), as: UTF8.self)
        let now = try StoredInstant.milliseconds(Date(), "the change's time")
        return try await write("withdraw announcements") { db in
            let logged = try ChangeLogSQL.newest(db)
            let doomed = try Row.fetchAll(db, sql: """
                DELETE FROM events
                WHERE status = 'planned' AND record_id IS NOT NULL
                  AND bridge_id IN (SELECT value FROM json_each(?1))
                  AND record_id NOT IN (SELECT value FROM json_each(?2))
                RETURNING bridge_id, opened_at, closed_at, status, record_id, record_version
                """, arguments: [bridges, kept])
            for row in doomed {
                try db.execute(sql: """
                    INSERT INTO change_log (recorded_ms, kind, bridge_id, opened_at, closed_at, status, record_id,
                                            record_version)
                    VALUES (?, 'withdrawn', ?, ?, ?, ?, ?, ?)
                    """, arguments: [now, row[0], row[1], row[2], row[3], row[4], row[5]])
                try db.execute(sql: "DELETE FROM event_records WHERE record_id = ? AND bridge_id = ? AND opened_at = ?",
                               arguments: [row[4], row[0], row[1]])
            }
            if !doomed.isEmpty {
                try db.execute(sql: "UPDATE history_version SET version = version + 1")
                try AlertOutboxSQL.enqueue(db, changesAfter: logged)
            }
            return doomed.count
        }
    }
}

extension SQLiteBridgeStore: AlertStore {
    public func saveAlert(_ rule: AlertRuleDTO, maximum: Int) async throws -> AlertSaveResult {
        let text = try rule.storedJSON()
        // Writers are serialized: the count and the insert are one step for every other writer.
        return try await write("save an alert") { db in
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM alerts WHERE name = ?", arguments: [rule.name]) ?? false
            if !exists {
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM alerts") ?? 0
                guard count < maximum else { return .refused(count: count) }
            }
            try db.execute(sql: "INSERT OR REPLACE INTO alerts (name, rule) VALUES (?, ?)", arguments: [rule.name, text])
            return exists ? .replaced : .created
        }
    }

    public func alerts() async throws -> [AlertRuleDTO] {
        try await read("read alerts") { db in
            try String.fetchAll(db, sql: "SELECT rule FROM alerts ORDER BY name").map(AlertRuleDTO.stored)
        }
    }

    public func removeAlert(named name: String) async throws -> Bool {
        try await write("remove an alert") { db in
            try db.execute(sql: "DELETE FROM alerts WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    public func enqueueAlertMessage(_ message: AlertMessageDTO, at now: Date) async throws -> Bool {
        try await write("enqueue an alert message") { db in try AlertOutboxSQL.insert(db, message, at: now) }
    }

    public func claimDueMessages(holder: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [AlertOutboxEntryDTO]
    {
        let (nowText, leaseText) = (try StoredTimestamp.text(now, "the claim's time"),
                                    try StoredTimestamp.text(leaseUntil, "the lease's end"))
        return try await write("claim alert messages") { db in
            try Row.fetchAll(db, sql: """
                UPDATE alert_outbox SET lease_until = ?1, lease_holder = ?2
                WHERE id IN (SELECT id FROM alert_outbox
                             WHERE state = 'pending' AND next_attempt_at <= ?3
                               AND (lease_until IS NULL OR lease_until <= ?3)
                             ORDER BY next_attempt_at, id LIMIT ?4)
                RETURNING \(AlertOutboxSQL.columns)
                """, arguments: [leaseText, holder, nowText, max(limit, 0)]).map(AlertOutboxSQL.entry)
                .sorted { $0.id < $1.id }
        }
    }

    public func claimMessage(eventID: String, holder: String, now: Date, leaseUntil: Date) async throws
        -> AlertOutboxEntryDTO?
    {
        let (nowText, leaseText) = (try StoredTimestamp.text(now, "the claim's time"),
                                    try StoredTimestamp.text(leaseUntil, "the lease's end"))
        return try await write("claim an alert message") { db in
            try Row.fetchOne(db, sql: """
                UPDATE alert_outbox SET lease_until = ?1, lease_holder = ?2
                WHERE event_id = ?3 AND state = 'pending' AND (lease_until IS NULL OR lease_until <= ?4)
                RETURNING \(AlertOutboxSQL.columns)
                """, arguments: [leaseText, holder, eventID, nowText]).map(AlertOutboxSQL.entry)
        }
    }

    public func recordAttempt(outboxID: Int64, holder: String, at: Date, outcome: AlertAttemptOutcome) async throws {
        let atText = try StoredTimestamp.text(at, "the attempt's time")
        try await write("record an alert attempt") { db in
            let (state, next, status, detail): (AlertDeliveryState, String, Int?, String?) = switch outcome {
            case .delivered(let status): (.delivered, atText, status, nil)
            case .retry(let status, let detail, let next):
                (.pending, try StoredTimestamp.text(next, "the next attempt's time"), status, detail)
            case .gone(let status): (.gone, atText, status, nil)
            case .expired(let detail): (.expired, atText, nil, detail)
            }
            try db.execute(sql: """
                UPDATE alert_outbox SET attempts = attempts + 1, lease_until = NULL, lease_holder = NULL,
                    next_attempt_at = ?2,
                    state = CASE WHEN state = 'delivered' THEN 'delivered' ELSE ?3 END
                WHERE id = ?1
                """, arguments: [outboxID, next, state.rawValue])
            guard db.changesCount == 1 else { return } // no such message: nothing to record
            try db.execute(sql: """
                INSERT INTO alert_attempts (outbox_id, attempt, at, holder, outcome, http_status, detail)
                VALUES (?1, (SELECT coalesce(max(attempt), 0) + 1 FROM alert_attempts WHERE outbox_id = ?1),
                        ?2, ?3, ?4, ?5, ?6)
                """, arguments: [outboxID, atText, holder, outcome.name, status, detail])
            if case .gone(let status) = outcome,
               let name = try String.fetchOne(db, sql: "SELECT alert FROM alert_outbox WHERE id = ?", arguments: [outboxID]),
               let text = try String.fetchOne(db, sql: "SELECT rule FROM alerts WHERE name = ?", arguments: [name]) {
                var rule = try AlertRuleDTO.stored(text)
                guard rule.disabled == nil else { return }
                rule.disabled = AlertDisabling(reason: AlertRuleDTO.goneReason(httpStatus: status), at: at)
                try db.execute(sql: "UPDATE alerts SET rule = ? WHERE name = ?", arguments: [try rule.storedJSON(), name])
            }
        }
    }

    public func pruneAlertMessages(finishedBefore cutoff: Date) async throws -> Int {
        let cutoffText = try StoredTimestamp.text(cutoff, "the cutoff")
        return try await write("prune the alert outbox") { db in
            try db.execute(sql: """
                DELETE FROM alert_attempts WHERE outbox_id IN
                    (SELECT id FROM alert_outbox WHERE state <> 'pending' AND next_attempt_at < ?1)
                """, arguments: [cutoffText])
            try db.execute(sql: "DELETE FROM alert_outbox WHERE state <> 'pending' AND next_attempt_at < ?1",
                           arguments: [cutoffText])
            return db.changesCount
        }
    }

    public func outboxMessages(alert: String?, limit: Int) async throws -> [AlertOutboxEntryDTO] {
        try await read("read the alert outbox") { db in
            try Row.fetchAll(db, sql: """
                SELECT \(AlertOutboxSQL.columns) FROM alert_outbox WHERE ?1 IS NULL OR alert = ?1 ORDER BY id DESC LIMIT ?2
                """, arguments: [alert, max(limit, 0)]).map(AlertOutboxSQL.entry)
        }
    }

    public func alertAttempts(alert: String?, limit: Int) async throws -> [AlertAttemptDTO] {
        try await read("read alert attempts") { db in
            try Row.fetchAll(db, sql: """
                SELECT a.outbox_id, o.event_id, o.alert, a.attempt, a.at, a.holder, a.outcome, a.http_status, a.detail
                FROM alert_attempts AS a JOIN alert_outbox AS o ON o.id = a.outbox_id
                WHERE ?1 IS NULL OR o.alert = ?1
                ORDER BY a.at DESC, a.outbox_id DESC, a.attempt DESC LIMIT ?2
                """, arguments: [alert, max(limit, 0)]).map { row in
                AlertAttemptDTO(outboxID: row[0], eventID: row[1], alert: row[2], attempt: row[3],
                                at: StoredTimestamp.date(row[4]) ?? Date(timeIntervalSince1970: 0), holder: row[5],
                                outcome: row[6], httpStatus: row[7], detail: row[8])
            }
        }
    }
}
