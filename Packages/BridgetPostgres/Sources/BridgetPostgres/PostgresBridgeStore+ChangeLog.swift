import BridgetDTOs
import BridgetPersistence
import Foundation
import PostgresNIO

extension EventBatch {
    /// The names of the ten columns of `query(before:after:)`'s rows, for `AS b (…)`.
    static let names = "(" + columns.joined(separator: ", ") + ")"
}

extension PostgresBridgeStore {
    /// The server's clock as whole milliseconds since 1970, in SQL.
    static let nowMS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    /// Makes the transaction the only one appending to the change log until it ends, so that numbers are given in
    /// the order transactions commit: a reader that has seen `n` never later meets a smaller number committed late.
    func holdChangeLog(_ connection: PostgresConnection) async throws {
        let key = PostgresSchema.lockKey("changes", schema: settings.schema)
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.lockClass), \(key))", logger: logger)
    }

    /// The newest number in the log (0 for none): pruning always keeps the newest change.
    func newestChange(_ connection: PostgresConnection) async throws -> Int64 {
        var newest: Int64 = 0
        for try await value in try await connection.query("SELECT coalesce(max(seq), 0)::bigint FROM change_log",
                                                          logger: logger).decode(Int64.self) { newest = value }
        return newest
    }

    static let changeColumns =
        "seq, recorded_ms, kind, bridge_id, opened_ms, closed_ms, status, record_id, record_version, summary"

    static func entry(_ row: PostgresRandomAccessRow) throws -> ChangeLogEntryDTO {
        let sequence = try row[0].decode(Int64.self)
        let recordedAt = date(milliseconds: try row[1].decode(Int64.self))
        let kindText = try row[2].decode(String.self)
        if kindText == BulkChangeDTO.kindName {
            guard let summary = try row[9].decode(String?.self) else {
                throw StoreError.corruptEvent(detail: "a bulk entry without its summary in the change log")
            }
            return .bulk(try StoredBulkChange.entry(json: summary, sequence: sequence, recordedAt: recordedAt))
        }
        guard let kind = OpeningChangeKind(rawValue: kindText), let bridgeID = try row[3].decode(String?.self),
              let opened = try row[4].decode(Int64?.self) else {
            throw StoreError.corruptEvent(detail: "an unknown change '\(kindText)' in the change log")
        }
        return .opening(OpeningChangeDTO(
            sequence: sequence, recordedAt: recordedAt, kind: kind, bridgeID: bridgeID,
            openedAt: date(milliseconds: opened),
            closedAt: try row[5].decode(Int64?.self).map(date(milliseconds:)),
            status: try row[6].decode(String?.self).flatMap(OpeningStatus.init(rawValue:)) ?? .observed,
            recordID: try row[7].decode(String?.self), recordVersion: try row[8].decode(Int64?.self).map { Int($0) }))
    }

    /// Appends a write's summary of its changes to older openings, naming the history version the write leaves
    /// (the one after the version now: every write that summarises moves it once, after).
    func appendSummary(_ tally: BulkChangeTally, _ connection: PostgresConnection) async throws {
        var version: Int64 = 0
        for try await value in try await connection.query("SELECT version FROM history_version", logger: logger)
            .decode(Int64.self) { version = value }
        let summary = try tally.stored(historyVersion: version + 1).json()
        try await connection.query("""
            INSERT INTO change_log (recorded_ms, kind, summary) VALUES (\(unescaped: Self.nowMS), 'bulk', \(summary))
            """, logger: logger)
    }

    /// Puts in the outbox the message of every alert a change logged after `sequence` triggers.
    func enqueueAlerts(changesAfter sequence: Int64, _ connection: PostgresConnection) async throws {
        var rules: [AlertRuleDTO] = []
        for try await text in try await connection.query("SELECT rule FROM alerts ORDER BY name", logger: logger)
            .decode(String.self) { rules.append(try AlertRuleDTO.stored(text)) }
        guard !rules.isEmpty else { return }
        let now = Date()
        var changes: [OpeningChangeDTO] = []
        // Summaries are never matched: a backfill pages nobody.
        for try await row in try await connection.query("""
            SELECT \(unescaped: Self.changeColumns) FROM change_log WHERE seq > \(sequence) AND kind <> 'bulk' ORDER BY seq
            """, logger: logger) {
            if let change = try Self.entry(row.makeRandomAccess()).opening { changes.append(change) }
        }
        var names: [String: String] = [:]
        for change in changes {
            for rule in rules where rule.isTriggered(by: change, at: now) {
                if names[change.bridgeID] == nil {
                    for try await name in try await connection.query(
                        "SELECT display_name FROM bridges WHERE id = \(change.bridgeID)", logger: logger
                    ).decode(String.self) { names[change.bridgeID] = name }
                }
                let message = AlertMessageDTO(alert: rule.name, change: change,
                                              bridgeName: names[change.bridgeID] ?? change.bridgeID, createdAt: now)
                _ = try await insertMessage(message, at: now, connection)
            }
        }
    }

    func insertMessage(_ message: AlertMessageDTO, at now: Date, _ connection: PostgresConnection) async throws -> Bool {
        let (body, at) = (try message.jsonBody(), try Self.milliseconds(now))
        var inserted = false
        for try await _ in try await connection.query("""
            INSERT INTO alert_outbox (event_id, alert, created_ms, body, next_attempt_ms)
            VALUES (\(message.id), \(message.alert), \(at), \(body), \(at))
            ON CONFLICT (event_id) DO NOTHING RETURNING 1
            """, logger: logger) { inserted = true }
        return inserted
    }

    static let outboxColumns = "id, event_id, alert, created_ms, body, state, attempts, next_attempt_ms"

    static func outboxEntry(_ row: PostgresRandomAccessRow) throws -> AlertOutboxEntryDTO {
        AlertOutboxEntryDTO(
            id: try row[0].decode(Int64.self), eventID: try row[1].decode(String.self), alert: try row[2].decode(String.self),
            createdAt: date(milliseconds: try row[3].decode(Int64.self)), body: try row[4].decode(String.self),
            state: AlertDeliveryState(rawValue: try row[5].decode(String.self)) ?? .pending,
            attempts: Int(try row[6].decode(Int32.self)), nextAttemptAt: date(milliseconds: try row[7].decode(Int64.self)))
    }
}

extension PostgresBridgeStore: ChangeLogStore {
    public func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) async throws -> [ChangeLogEntryDTO] {
        let query: PostgresQuery = if let bridgeIDs {
            // A summary is a bridge's when it counts the bridge.
            """
            SELECT \(unescaped: Self.changeColumns) FROM change_log
            WHERE seq > \(sequence)
              AND (bridge_id = ANY(\(bridgeIDs)::text[])
                   OR (kind = 'bulk' AND (summary::jsonb -> 'bridgeIDs') ?| \(bridgeIDs)::text[]))
            ORDER BY seq LIMIT \(Int64(max(limit, 0)))
            """
        } else {
            """
            SELECT \(unescaped: Self.changeColumns) FROM change_log WHERE seq > \(sequence) ORDER BY seq
            LIMIT \(Int64(max(limit, 0)))
            """
        }
        return try await rows("read the change log", query).map(Self.entry)
    }

    public func changeLogBounds() async throws -> ChangeLogBounds {
        let rows = try await rows("read the change log",
                                  "SELECT min(seq)::bigint, coalesce(max(seq), 0)::bigint FROM change_log")
        guard let row = rows.first else { return ChangeLogBounds(oldest: nil, newest: 0) }
        return ChangeLogBounds(oldest: try row[0].decode(Int64?.self), newest: try row[1].decode(Int64.self))
    }

    public func pruneChanges(recordedBefore cutoff: Date) async throws -> Int {
        let milliseconds = try Self.milliseconds(cutoff)
        return try await transaction("prune the change log") { connection in
            var removed = 0
            for try await count in try await connection.query("""
                WITH removed AS (
                    DELETE FROM change_log
                    WHERE seq < coalesce((SELECT seq FROM change_log WHERE recorded_ms >= \(milliseconds) ORDER BY seq LIMIT 1),
                                         (SELECT max(seq) FROM change_log))
                    RETURNING 1
                )
                SELECT count(*) FROM removed
                """, logger: logger).decode(Int64.self) { removed = Int(count) }
            return removed
        }
    }

    public func withdrawAnnouncements(bridgeIDs: [String], keeping current: Set<String>) async throws -> Int {
        guard !bridgeIDs.isEmpty else { return 0 }
        let kept = current.sorted()
        return try await transaction("withdraw announcements") { connection in
            try await holdChangeLog(connection)
            let logged = try await newestChange(connection)
            var withdrawn = 0
            for try await count in try await connection.query("""
                WITH removed AS (
                    DELETE FROM events
                    WHERE status = 'planned' AND record_id IS NOT NULL AND bridge_id = ANY(\(bridgeIDs)::text[])
                      AND NOT (record_id = ANY(\(kept)::text[]))
                    RETURNING bridge_id, opened_ms, closed_ms, status, record_id, record_version
                ),
                logged AS (
                    INSERT INTO change_log (recorded_ms, kind, bridge_id, opened_ms, closed_ms, status, record_id,
                                            record_version)
                    SELECT \(unescaped: Self.nowMS), 'withdrawn', bridge_id, opened_ms, closed_ms, status, record_id,
                           record_version
                    FROM removed ORDER BY opened_ms, bridge_id
                )
                SELECT count(*) FROM removed
                """, logger: logger).decode(Int64.self) { withdrawn = Int(count) }
            if withdrawn > 0 {
                try await connection.query("UPDATE history_version SET version = version + 1", logger: logger)
                try await enqueueAlerts(changesAfter: logged, connection)
            }
            return withdrawn
        }
    }
}

extension PostgresBridgeStore: AlertStore {
    public func saveAlert(_ rule: AlertRuleDTO, maximum: Int) async throws -> AlertSaveResult {
        let text = try rule.storedJSON()
        let key = PostgresSchema.lockKey("alerts", schema: settings.schema)
        // Saves take turns on the alerts' lock, so a count and the insert after it are one step for every host.
        return try await transaction("save an alert") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.lockClass), \(key))", logger: logger)
            var (exists, count) = (false, 0)
            for try await (found, total) in try await connection.query("""
                SELECT EXISTS (SELECT 1 FROM alerts WHERE name = \(rule.name)), (SELECT count(*) FROM alerts)::bigint
                """, logger: logger).decode((Bool, Int64).self) { (exists, count) = (found, Int(total)) }
            guard exists || count < maximum else { return .refused(count: count) }
            try await connection.query("""
                INSERT INTO alerts (name, rule) VALUES (\(rule.name), \(text))
                ON CONFLICT (name) DO UPDATE SET rule = excluded.rule
                """, logger: logger)
            return exists ? .replaced : .created
        }
    }

    public func pruneAlertMessages(finishedBefore cutoff: Date) async throws -> Int {
        let cutoffMS = try Self.milliseconds(cutoff, "the cutoff")
        return try await transaction("prune the alert outbox") { connection in
            try await connection.query("""
                DELETE FROM alert_attempts WHERE outbox_id IN
                    (SELECT id FROM alert_outbox WHERE state <> 'pending' AND next_attempt_ms < \(cutoffMS))
                """, logger: logger)
            var removed = 0
            for try await _ in try await connection.query("""
                DELETE FROM alert_outbox WHERE state <> 'pending' AND next_attempt_ms < \(cutoffMS) RETURNING 1
                """, logger: logger) { removed += 1 }
            return removed
        }
    }

    public func alerts() async throws -> [AlertRuleDTO] {
        try await rows("read alerts", "SELECT rule FROM alerts ORDER BY name").map {
            try AlertRuleDTO.stored(try $0[0].decode(String.self))
        }
    }

    public func removeAlert(named name: String) async throws -> Bool {
        !(try await rows("remove an alert", "DELETE FROM alerts WHERE name = \(name) RETURNING 1")).isEmpty
    }

    public func enqueueAlertMessage(_ message: AlertMessageDTO, at now: Date) async throws -> Bool {
        try await withConnection("enqueue an alert message") { connection in
            try await insertMessage(message, at: now, connection)
        }
    }

    public func claimDueMessages(holder: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [AlertOutboxEntryDTO]
    {
        // SKIP LOCKED: hosts claiming at once take different messages instead of waiting on each other's rows.
        let (nowMS, leaseMS) = (try Self.milliseconds(now, "the claim's time"), try Self.milliseconds(leaseUntil, "the lease's end"))
        return try await rows("claim alert messages", """
            UPDATE alert_outbox SET lease_until_ms = \(leaseMS), lease_holder = \(holder)
            WHERE id IN (SELECT id FROM alert_outbox
                         WHERE state = 'pending' AND next_attempt_ms <= \(nowMS)
                           AND (lease_until_ms IS NULL OR lease_until_ms <= \(nowMS))
                         ORDER BY next_attempt_ms, id LIMIT \(Int64(max(limit, 0)))
                         FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: Self.outboxColumns)
            """).map(Self.outboxEntry).sorted { $0.id < $1.id }
    }

    public func claimMessage(eventID: String, holder: String, now: Date, leaseUntil: Date) async throws
        -> AlertOutboxEntryDTO?
    {
        let (nowMS, leaseMS) = (try Self.milliseconds(now, "the claim's time"), try Self.milliseconds(leaseUntil, "the lease's end"))
        return try await rows("claim an alert message", """
            UPDATE alert_outbox SET lease_until_ms = \(leaseMS), lease_holder = \(holder)
            WHERE event_id = \(eventID) AND state = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms <= \(nowMS))
            RETURNING \(unescaped: Self.outboxColumns)
            """).first.map(Self.outboxEntry)
    }

    public func recordAttempt(outboxID: Int64, holder: String, at: Date, outcome: AlertAttemptOutcome) async throws {
        let atMS = try Self.milliseconds(at, "the attempt's time")
        let (state, next, status, detail): (AlertDeliveryState, Int64, Int32?, String?) = switch outcome {
        case .delivered(let status): (.delivered, atMS, Int32(status), nil)
        case .retry(let status, let detail, let next): (.pending, try Self.milliseconds(next, "the next attempt's time"), status.map(Int32.init), detail)
        case .gone(let status): (.gone, atMS, Int32(status), nil)
        case .expired(let detail): (.expired, atMS, nil, detail)
        }
        try await transaction("record an alert attempt") { connection in
            var found = false
            for try await _ in try await connection.query("""
                UPDATE alert_outbox SET attempts = attempts + 1, lease_until_ms = NULL, lease_holder = NULL,
                    next_attempt_ms = \(next),
                    state = CASE WHEN state = 'delivered' THEN 'delivered' ELSE \(state.rawValue) END
                WHERE id = \(outboxID) RETURNING 1
                """, logger: logger) { found = true }
            guard found else { return }
            try await connection.query("""
                INSERT INTO alert_attempts (outbox_id, attempt, at_ms, holder, outcome, http_status, detail)
                VALUES (\(outboxID), (SELECT coalesce(max(attempt), 0) + 1 FROM alert_attempts WHERE outbox_id = \(outboxID)),
                        \(atMS), \(holder), \(outcome.name), \(status)::integer, \(detail)::text)
                """, logger: logger)
            guard case .gone(let status) = outcome else { return }
            var stored: (name: String, rule: String)?
            for try await (name, text) in try await connection.query("""
                SELECT a.name, a.rule FROM alerts AS a JOIN alert_outbox AS o ON o.alert = a.name
                WHERE o.id = \(outboxID) FOR UPDATE OF a
                """, logger: logger).decode((String, String).self) { stored = (name, text) }
            guard let stored else { return }
            var rule = try AlertRuleDTO.stored(stored.rule)
            guard rule.disabled == nil else { return }
            rule.disabled = AlertDisabling(reason: AlertRuleDTO.goneReason(httpStatus: status), at: at)
            try await connection.query("UPDATE alerts SET rule = \(try rule.storedJSON()) WHERE name = \(stored.name)",
                                       logger: logger)
        }
    }

    public func outboxMessages(alert: String?, limit: Int) async throws -> [AlertOutboxEntryDTO] {
        try await rows("read the alert outbox", """
            SELECT \(unescaped: Self.outboxColumns) FROM alert_outbox
            WHERE \(alert)::text IS NULL OR alert = \(alert)::text ORDER BY id DESC LIMIT \(Int64(max(limit, 0)))
            """).map(Self.outboxEntry)
    }

    public func alertAttempts(alert: String?, limit: Int) async throws -> [AlertAttemptDTO] {
        try await rows("read alert attempts", """
            SELECT a.outbox_id, o.event_id, o.alert, a.attempt, a.at_ms, a.holder, a.outcome, a.http_status, a.detail
            FROM alert_attempts AS a JOIN alert_outbox AS o ON o.id = a.outbox_id
            WHERE \(alert)::text IS NULL OR o.alert = \(alert)::text
            ORDER BY a.at_ms DESC, a.outbox_id DESC, a.attempt DESC LIMIT \(Int64(max(limit, 0)))
            """).map { row in
            AlertAttemptDTO(
                outboxID: try row[0].decode(Int64.self), eventID: try row[1].decode(String.self),
                alert: try row[2].decode(String.self), attempt: Int(try row[3].decode(Int32.self)),
                at: Self.date(milliseconds: try row[4].decode(Int64.self)), holder: try row[5].decode(String.self),
                outcome: try row[6].decode(String.self), httpStatus: try row[7].decode(Int32?.self).map { Int($0) },
                detail: try row[8].decode(String?.self))
        }
    }
}
