import BridgetPersistence
import GRDB

/// The SQLite schema, as versioned migrations. Never edit a shipped migration: add one.
enum StoreSchema {
    /// The tables the migrations make (SQLite's own `sqlite_` tables aside), `grdb_migrations` included: read from
    /// an in-memory database migrated once, so the list cannot fall behind a new migration. Empty if that failed,
    /// which makes no unmarked file pass for a Bridget store.
    static let tableNames: Set<String> = {
        let names = try? {
            let queue = try DatabaseQueue()
            try migrator.migrate(queue)
            return try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        }()
        return Set((names ?? []).filter { !$0.hasPrefix("sqlite_") })
    }()

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: bridges, events, sync runs") { db in
            try db.execute(sql: """
                CREATE TABLE bridges (
                    id           TEXT PRIMARY KEY NOT NULL,  -- the dataset's entityid
                    name         TEXT NOT NULL,              -- the dataset's entityname
                    display_name TEXT NOT NULL,
                    latitude     REAL NOT NULL,
                    longitude    REAL NOT NULL,
                    waterway     TEXT NOT NULL,
                    kind         TEXT NOT NULL
                );
                CREATE TABLE events (
                    bridge_id        TEXT NOT NULL REFERENCES bridges(id),
                    opened_at        TEXT NOT NULL,  -- UTC instant, e.g. 2026-09-24T05:35:00.000Z
                    entity_name      TEXT NOT NULL,
                    open_local       TEXT NOT NULL,  -- opendatetime as received (Seattle wall clock)
                    closed_at        TEXT,           -- UTC instant; NULL while unknown
                    close_local      TEXT,           -- closedatetime as received
                    minutes_open     INTEGER,        -- minutesopen as received
                    duration_minutes REAL,           -- (closed_at - opened_at) in minutes
                    latitude         REAL,
                    longitude        REAL,
                    PRIMARY KEY (bridge_id, opened_at),
                    CHECK (closed_at IS NULL OR closed_at >= opened_at)
                ) WITHOUT ROWID;
                CREATE INDEX events_by_time ON events (opened_at);
                CREATE TABLE sync_runs (
                    id               INTEGER PRIMARY KEY AUTOINCREMENT,
                    provider         TEXT NOT NULL,
                    started_at       TEXT NOT NULL,
                    finished_at      TEXT,
                    status           TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
                    watermark_before TEXT,
                    watermark_after  TEXT,
                    fetched          INTEGER NOT NULL DEFAULT 0,
                    inserted         INTEGER NOT NULL DEFAULT 0,
                    updated          INTEGER NOT NULL DEFAULT 0,
                    unchanged        INTEGER NOT NULL DEFAULT 0,
                    rejected         INTEGER NOT NULL DEFAULT 0,
                    rejections       TEXT NOT NULL DEFAULT '{}',  -- JSON: reason -> count
                    error            TEXT
                );
                """)
        }
        migrator.registerMigration("v2: sync run fingerprints") { db in
            // The source's change-check answer at the run's start: equal answers for the same watermark mean the
            // source has not changed, so the next sync can skip paging.
            try db.execute(sql: "ALTER TABLE sync_runs ADD COLUMN fingerprint TEXT")
        }
        migrator.registerMigration("v3: opening models") { db in
            try db.execute(sql: """
                CREATE TABLE opening_models (
                    bridge_id              TEXT PRIMARY KEY NOT NULL REFERENCES bridges(id) ON DELETE CASCADE,
                    built_at               TEXT NOT NULL,
                    first_day              TEXT,
                    last_day               TEXT,
                    openings               INTEGER NOT NULL,
                    source_events          INTEGER NOT NULL,  -- with source_latest_opening: is the model stale?
                    source_latest_opening  TEXT,
                    base_start_probability REAL NOT NULL,
                    base_open_probability  REAL NOT NULL,
                    month_factors          TEXT NOT NULL, -- JSON: 12 numbers, January first
                    source_version         INTEGER NOT NULL -- history_version.version when built
                );
                CREATE TABLE opening_model_slots (
                    bridge_id              TEXT NOT NULL REFERENCES opening_models(bridge_id) ON DELETE CASCADE,
                    slot                   INTEGER NOT NULL CHECK (slot BETWEEN 0 AND 671), -- 15 min, Monday 00:00 = 0
                    starts                 INTEGER NOT NULL,
                    occurrences            INTEGER NOT NULL,
                    start_probability      REAL NOT NULL,
                    open_probability       REAL NOT NULL,
                    mean_remaining_minutes REAL NOT NULL,
                    PRIMARY KEY (bridge_id, slot)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4: routes") { db in
            try db.execute(sql: """
                CREATE TABLE routes (
                    name      TEXT PRIMARY KEY NOT NULL,
                    favorite  INTEGER NOT NULL DEFAULT 0,
                    crossings TEXT NOT NULL  -- JSON: [{"bridgeIDs":["3","2"],"minutesFromStart":8}, …]
                );
                """)
        }
        migrator.registerMigration("v5: traffic flows") { db in
            try db.execute(sql: """
                CREATE TABLE traffic_flows (
                    bridge_id   TEXT NOT NULL REFERENCES bridges(id),
                    observed_at TEXT NOT NULL,  -- UTC instant
                    congestion  REAL NOT NULL CHECK (congestion BETWEEN 0 AND 1),
                    volume      INTEGER NOT NULL,
                    PRIMARY KEY (bridge_id, observed_at)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v6: history version") { db in
            // Bumped in the same transaction as every change to events, so "has the history changed since the
            // model was built?" is one row read instead of a count over millions of rows.
            try db.execute(sql: """
                CREATE TABLE history_version (
                    id      INTEGER PRIMARY KEY CHECK (id = 1),
                    version INTEGER NOT NULL
                );
                INSERT INTO history_version (id, version) VALUES (1, 0);
                """)
        }
        migrator.registerMigration("v7: import checkpoints") { db in
            // One row per unfinished import, written in each batch's transaction: where to resume in the file.
            try db.execute(sql: """
                CREATE TABLE import_checkpoints (
                    source TEXT PRIMARY KEY NOT NULL,  -- the file's absolute path
                    state  TEXT NOT NULL               -- JSON: identity, offset, line, counts so far
                );
                """)
        }
        migrator.registerMigration("v8: event status and record versions") { db in
            // A source that announces openings (NDW) sends planned ones beside observed ones, as records with an
            // id and a version read again every few minutes: a higher version replaces the stored one even when
            // its opening moved, which the record id finds. Socrata's rows have none (observed, NULL, NULL).
            try db.execute(sql: """
                ALTER TABLE events ADD COLUMN status TEXT NOT NULL DEFAULT 'observed'
                    CHECK (status IN ('observed', 'planned'));
                ALTER TABLE events ADD COLUMN record_id TEXT;
                ALTER TABLE events ADD COLUMN record_version INTEGER;
                CREATE INDEX events_by_record ON events (record_id) WHERE record_id IS NOT NULL;
                """)
        }
        migrator.registerMigration("v9: observed openings store no status") { db in
            // v8 wrote 'observed' into every row under a CHECK: three more columns, nine more bytes and a constraint
            // each insert paid, a tenth of an import's time. Now an observed opening stores NULL (nearly every row,
            // every Socrata row), a planned one 'planned'; readers refuse any other value. SQLite cannot change a
            // column's constraints in place, so the table is rebuilt, the rows copied as they are.
            try db.execute(sql: """
                CREATE TABLE events_v9 (
                    bridge_id        TEXT NOT NULL REFERENCES bridges(id),
                    opened_at        TEXT NOT NULL,
                    entity_name      TEXT NOT NULL,
                    open_local       TEXT NOT NULL,
                    closed_at        TEXT,
                    close_local      TEXT,
                    minutes_open     INTEGER,
                    duration_minutes REAL,
                    latitude         REAL,
                    longitude        REAL,
                    status           TEXT,            -- NULL: observed; 'planned': announced by the source (NDW)
                    record_id        TEXT,            -- the source's record id and version (NDW); NULL for Socrata
                    record_version   INTEGER,
                    PRIMARY KEY (bridge_id, opened_at),
                    CHECK (closed_at IS NULL OR closed_at >= opened_at)
                ) WITHOUT ROWID;
                INSERT INTO events_v9
                    SELECT bridge_id, opened_at, entity_name, open_local, closed_at, close_local, minutes_open,
                           duration_minutes, latitude, longitude, NULLIF(status, 'observed'), record_id, record_version
                    FROM events;
                DROP TABLE events;
                ALTER TABLE events_v9 RENAME TO events;
                CREATE INDEX events_by_time ON events (opened_at);
                CREATE INDEX events_by_record ON events (record_id) WHERE record_id IS NOT NULL;
                """)
        }
        migrator.registerMigration("v10: kept answers") { db in
            // Answers derived from the history (the pages' figures, a backtest), each with the history version it
            // was computed from: readers at that version read them instead of the history. Not history themselves,
            // so keeping one bumps no version.
            try db.execute(sql: """
                CREATE TABLE kept_answers (
                    name            TEXT PRIMARY KEY,
                    history_version INTEGER NOT NULL,
                    body            BLOB NOT NULL
                )
                """)
        }
        migrator.registerMigration("v11: record ids beside the events") { db in
            // Record ids are NDW's alone, yet a partial index on events.record_id was opened and judged by every
            // insert, Socrata's included: a few percent of an import. The ids are now listed in a table of their own
            // that only writes of records touch, read through a join that checks events.record_id (an id left behind
            // by a deleted or overwritten event matches nothing). Events keep their record id and version.
            try db.execute(sql: """
                CREATE TABLE event_records (
                    record_id TEXT NOT NULL,
                    bridge_id TEXT NOT NULL,
                    opened_at TEXT NOT NULL,
                    PRIMARY KEY (record_id, bridge_id, opened_at)
                ) WITHOUT ROWID;
                INSERT INTO event_records (record_id, bridge_id, opened_at)
                    SELECT record_id, bridge_id, opened_at FROM events WHERE record_id IS NOT NULL;
                DROP INDEX events_by_record;
                """)
        }
        migrator.registerMigration("v12: change log, alerts and their outbox") { db in
            // Every change to an opening, numbered in commit order (writes are serialized by SQLite), appended in
            // the write's transaction. The number is the rowid: SQLite gives the largest plus one, and pruning always
            // keeps the newest row, so a number is never given twice (AUTOINCREMENT's bookkeeping row, updated on
            // every insert, cost a third of an import). No index but the number's: an import appends a row per
            // opening, and pruning, which scans, is rare. The time is whole milliseconds since 1970, as PostgreSQL's. Alerts are subscriptions
            // (their rule as JSON); the outbox holds each message an alert owes, written in the transaction of the
            // change that triggers it, with the attempts to deliver it.
            try db.execute(sql: """
                CREATE TABLE change_log (
                    seq            INTEGER PRIMARY KEY,
                    recorded_ms    INTEGER NOT NULL,  -- UTC, milliseconds since 1970
                    kind           TEXT NOT NULL
                        CHECK (kind IN ('new', 'announced', 'closed', 'updated', 'replaced', 'withdrawn')),
                    bridge_id      TEXT NOT NULL,
                    opened_at      TEXT NOT NULL,
                    closed_at      TEXT,
                    status         TEXT,           -- NULL observed, as in events
                    record_id      TEXT,
                    record_version INTEGER
                );
                CREATE TABLE alerts (
                    name TEXT PRIMARY KEY NOT NULL,
                    rule TEXT NOT NULL  -- JSON: AlertRule
                );
                CREATE TABLE alert_outbox (
                    id              INTEGER PRIMARY KEY AUTOINCREMENT,
                    event_id        TEXT NOT NULL UNIQUE,  -- what receivers drop repeats by
                    alert           TEXT NOT NULL,
                    created_at      TEXT NOT NULL,
                    body            TEXT NOT NULL,         -- JSON, as sent
                    state           TEXT NOT NULL DEFAULT 'pending'
                        CHECK (state IN ('pending', 'delivered', 'gone', 'expired')),
                    attempts        INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at TEXT NOT NULL,
                    lease_until     TEXT,
                    lease_holder    TEXT
                );
                CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt_at) WHERE state = 'pending';
                CREATE TABLE alert_attempts (
                    outbox_id   INTEGER NOT NULL REFERENCES alert_outbox(id) ON DELETE CASCADE,
                    attempt     INTEGER NOT NULL,
                    at          TEXT NOT NULL,
                    holder      TEXT NOT NULL,
                    outcome     TEXT NOT NULL,
                    http_status INTEGER,
                    detail      TEXT,
                    PRIMARY KEY (outbox_id, attempt)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v13: openings seen live, and the live state feed") { db in
            // An opening seen by polling a live state feed is stored as status 'live' with how uncertain its times
            // are (LiveWindow's text); a published row replaces it. The partial index holds only live openings, so
            // a batch of published rows finds the live ones it may replace without reading the others. One row
            // keeps what the feed was last seen to say and who polls it (a lease, milliseconds since 1970).
            try db.execute(sql: """
                ALTER TABLE events ADD COLUMN live TEXT;
                CREATE INDEX events_live ON events (bridge_id, opened_at) WHERE status = 'live';
                CREATE TABLE live_feed (
                    id             INTEGER PRIMARY KEY CHECK (id = 1),
                    state          TEXT,     -- JSON: LiveFeedState
                    holder         TEXT,
                    lease_until_ms INTEGER
                );
                INSERT INTO live_feed (id) VALUES (1);
                """)
        }
        migrator.registerMigration("v14: what models know beyond their slots") { db in
            // JSON: OpeningDynamicsDTO (followers, durations, the holiday rule). A model saved before has none and
            // forecasts from its slots until the next rebuild, which every history change brings.
            try db.execute(sql: "ALTER TABLE opening_models ADD COLUMN dynamics TEXT")
        }
        migrator.registerMigration("v15: bulk writes summarised in the change log") { db in
            // A bulk write's changes to older openings are one 'bulk' entry (BulkChangeTally): no opening of its own,
            // its summary as JSON (StoredBulkChange). SQLite alters no CHECK or NOT NULL, so the table is rebuilt;
            // the log is pruned and small, and its numbers are kept (the newest with them).
            try db.execute(sql: """
                CREATE TABLE change_log_v15 (
                    seq            INTEGER PRIMARY KEY,
                    recorded_ms    INTEGER NOT NULL,  -- UTC, milliseconds since 1970
                    kind           TEXT NOT NULL
                        CHECK (kind IN ('new', 'announced', 'closed', 'updated', 'replaced', 'withdrawn', 'bulk')),
                    bridge_id      TEXT,            -- NULL for 'bulk' only
                    opened_at      TEXT,            -- NULL for 'bulk' only
                    closed_at      TEXT,
                    status         TEXT,            -- NULL observed, as in events
                    record_id      TEXT,
                    record_version INTEGER,
                    summary        TEXT,            -- JSON for 'bulk' only: StoredBulkChange
                    CHECK ((kind = 'bulk') = (summary IS NOT NULL AND bridge_id IS NULL AND opened_at IS NULL))
                );
                INSERT INTO change_log_v15 (seq, recorded_ms, kind, bridge_id, opened_at, closed_at, status, record_id,
                                            record_version)
                    SELECT seq, recorded_ms, kind, bridge_id, opened_at, closed_at, status, record_id, record_version
                    FROM change_log;
                DROP TABLE change_log;
                ALTER TABLE change_log_v15 RENAME TO change_log;
                """)
        }
        migrator.registerMigration("v16: the store's source") { db in
            // What names the data the store holds (SourceIdentity), recorded by the first sync or import: one of
            // another source is refused before it writes. A store migrated with data and no row takes the next
            // source that writes to it.
            try db.execute(sql: """
                CREATE TABLE store_source (
                    id          INTEGER PRIMARY KEY CHECK (id = 1),
                    kind        TEXT NOT NULL,
                    name        TEXT NOT NULL,
                    recorded_at TEXT NOT NULL
                );
                """)
        }
        return migrator
    }
}
