import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema, as versioned migrations recorded in `bridget_schema`. Never edit a shipped migration: add
/// one. The tables mirror the SQLite store's at its version 12, with times as whole milliseconds since 1970.
enum PostgresSchema {
    /// The advisory lock class of every lock Bridget takes: "BRDG" in ASCII, as the SQLite store's application id.
    static let lockClass: Int32 = 0x4252_4447

    /// The advisory lock key of `purpose` ("migrate", "sync") in a schema: an FNV-1a hash, the same in every process.
    static func lockKey(_ purpose: String, schema: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in "\(purpose):\(schema)".utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return Int32(bitPattern: hash)
    }

    /// The migrations, oldest first: each one's version is its place in the list, from 1.
    static let migrations: [(description: String, sql: String)] = [
        ("bridges, events, history version, sync runs, import checkpoints, opening models, routes, traffic flows", """
        CREATE TABLE bridges (
            id           text COLLATE "C" PRIMARY KEY,   -- the source's bridge id
            name         text NOT NULL,
            display_name text NOT NULL,
            latitude     double precision NOT NULL,
            longitude    double precision NOT NULL,
            waterway     text NOT NULL,
            kind         text NOT NULL
        );
        CREATE TABLE events (
            -- A bridge of the catalog, checked for each batch in its transaction (the store never deletes a bridge):
            -- a foreign key's check, row by row, cost 40% of a bulk insert. integrityCheck() looks again.
            bridge_id      text COLLATE "C" NOT NULL,
            opened_ms      bigint NOT NULL,   -- UTC instant, milliseconds since 1970
            entity_name    text NOT NULL,
            open_local     text NOT NULL,     -- the opening as the source's local clock read it
            closed_ms      bigint,            -- NULL while unknown
            close_local    text,
            minutes_open   bigint,
            latitude       double precision,
            longitude      double precision,
            status         text CHECK (status = 'planned'),  -- NULL: observed
            record_id      text COLLATE "C",  -- the source's record id and version (NDW); NULL for Socrata
            record_version bigint,
            PRIMARY KEY (bridge_id, opened_ms),
            CHECK (closed_ms IS NULL OR closed_ms >= opened_ms)
        );
        CREATE INDEX events_by_time ON events (opened_ms, bridge_id);
        CREATE INDEX events_by_record ON events (record_id) WHERE record_id IS NOT NULL;
        CREATE TABLE history_version (
            id      integer PRIMARY KEY CHECK (id = 1),
            version bigint NOT NULL
        );
        INSERT INTO history_version (id, version) VALUES (1, 0);
        CREATE TABLE sync_runs (
            id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            provider            text NOT NULL,
            started_ms          bigint NOT NULL,
            finished_ms         bigint,
            status              text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
            watermark_before_ms bigint,
            watermark_after_ms  bigint,
            fetched             bigint NOT NULL DEFAULT 0,
            inserted            bigint NOT NULL DEFAULT 0,
            updated             bigint NOT NULL DEFAULT 0,
            unchanged           bigint NOT NULL DEFAULT 0,
            rejected            bigint NOT NULL DEFAULT 0,
            rejections          text NOT NULL DEFAULT '{}',  -- JSON: reason -> count
            error               text,
            fingerprint         text,
            host                text          -- who held the sync lock while this run wrote (none: no lock taken)
        );
        CREATE TABLE import_checkpoints (
            source text COLLATE "C" PRIMARY KEY,  -- the file's absolute path
            state  text NOT NULL                  -- JSON: identity, offset, line, counts so far
        );
        CREATE TABLE opening_models (
            bridge_id              text COLLATE "C" PRIMARY KEY REFERENCES bridges (id) ON DELETE CASCADE,
            built_ms               bigint NOT NULL,
            first_day              text,
            last_day               text,
            openings               bigint NOT NULL,
            source_events          bigint NOT NULL,
            source_latest_ms       bigint,
            base_start_probability double precision NOT NULL,
            base_open_probability  double precision NOT NULL,
            month_factors          double precision[] NOT NULL,  -- 12, January first
            source_version         bigint NOT NULL,
            -- the 672 slots of the week (15 minutes each, Monday 00:00 first), one array a figure
            slot_starts            bigint[] NOT NULL,
            slot_occurrences       bigint[] NOT NULL,
            slot_start_probability double precision[] NOT NULL,
            slot_open_probability  double precision[] NOT NULL,
            slot_mean_remaining    double precision[] NOT NULL
        );
        CREATE TABLE routes (
            name      text COLLATE "C" PRIMARY KEY,
            favorite  boolean NOT NULL DEFAULT false,
            crossings text NOT NULL  -- JSON: [{"bridgeIDs":["3","2"],"minutesFromStart":8}, …]
        );
        CREATE TABLE traffic_flows (
            bridge_id   text COLLATE "C" NOT NULL REFERENCES bridges (id),
            observed_ms bigint NOT NULL,
            congestion  double precision NOT NULL CHECK (congestion BETWEEN 0 AND 1),
            volume      bigint NOT NULL,
            PRIMARY KEY (bridge_id, observed_ms)
        );
        """),
        ("kept answers", """
        CREATE TABLE kept_answers (
            name            text COLLATE "C" PRIMARY KEY,
            history_version bigint NOT NULL,  -- the history version the answer was computed from
            body            bytea NOT NULL
        );
        """),
        ("change log, alerts and their outbox", """
        CREATE TABLE change_log (
            -- Numbered in commit order: every transaction that appends holds the "changes" advisory lock to its end.
            seq            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            recorded_ms    bigint NOT NULL,
            kind           text NOT NULL
                CHECK (kind IN ('new', 'announced', 'closed', 'updated', 'replaced', 'withdrawn')),
            bridge_id      text COLLATE "C" NOT NULL,
            opened_ms      bigint NOT NULL,
            closed_ms      bigint,
            status         text,            -- NULL observed, as in events
            record_id      text,
            record_version bigint
        );
        CREATE TABLE alerts (
            name text COLLATE "C" PRIMARY KEY,
            rule text NOT NULL  -- JSON: AlertRule
        );
        CREATE TABLE alert_outbox (
            id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            event_id        text COLLATE "C" NOT NULL UNIQUE,
            alert           text COLLATE "C" NOT NULL,
            created_ms      bigint NOT NULL,
            body            text NOT NULL,
            state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'gone', 'expired')),
            attempts        integer NOT NULL DEFAULT 0,
            next_attempt_ms bigint NOT NULL,
            lease_until_ms  bigint,
            lease_holder    text
        );
        CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt_ms) WHERE state = 'pending';
        CREATE TABLE alert_attempts (
            outbox_id   bigint NOT NULL REFERENCES alert_outbox (id) ON DELETE CASCADE,
            attempt     integer NOT NULL,
            at_ms       bigint NOT NULL,
            holder      text NOT NULL,
            outcome     text NOT NULL,
            http_status integer,
            detail      text,
            PRIMARY KEY (outbox_id, attempt)
        );
        """),
        ("openings seen live, and the live state feed", """
        ALTER TABLE events ADD COLUMN live text;
        ALTER TABLE events DROP CONSTRAINT events_status_check;
        ALTER TABLE events ADD CONSTRAINT events_status_check CHECK (status IN ('planned', 'live'));
        CREATE INDEX events_live ON events (bridge_id, opened_ms) WHERE status = 'live';
        CREATE TABLE live_feed (
            id             integer PRIMARY KEY CHECK (id = 1),
            state          text,    -- JSON: LiveFeedState
            holder         text,
            lease_until_ms bigint
        );
        INSERT INTO live_feed (id) VALUES (1);
        """),
        ("what models know beyond their slots", """
        ALTER TABLE opening_models ADD COLUMN dynamics text;  -- JSON: OpeningDynamicsDTO
        """),
        ("bulk writes summarised in the change log", """
        -- A bulk write's changes to older openings are one 'bulk' entry: no opening, its summary as JSON.
        ALTER TABLE change_log DROP CONSTRAINT change_log_kind_check;
        ALTER TABLE change_log ALTER COLUMN bridge_id DROP NOT NULL, ALTER COLUMN opened_ms DROP NOT NULL,
            ADD COLUMN summary text,  -- JSON: StoredBulkChange
            ADD CONSTRAINT change_log_kind_check
                CHECK (kind IN ('new', 'announced', 'closed', 'updated', 'replaced', 'withdrawn', 'bulk')),
            ADD CONSTRAINT change_log_bulk_check
                CHECK ((kind = 'bulk') = (summary IS NOT NULL AND bridge_id IS NULL AND opened_ms IS NULL));
        """),
        ("the store's source", """
        -- What names the data the store holds (SourceIdentity), recorded by the first sync or import.
        CREATE TABLE store_source (
            id          integer PRIMARY KEY CHECK (id = 1),
            kind        text NOT NULL,
            name        text NOT NULL,
            recorded_ms bigint NOT NULL
        );
        """),
        ("a notification at each commit that logs a change", """
        -- Readers of the log (the stream's hub, on any host) LISTEN on bridget_changes and read the log when told,
        -- instead of waiting for their next poll; the payload names the schema, so each store hears its own.
        CREATE FUNCTION bridget_change_logged() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('bridget_changes', TG_TABLE_SCHEMA); RETURN NULL; END $$;
        CREATE TRIGGER change_log_notify AFTER INSERT ON change_log FOR EACH STATEMENT EXECUTE FUNCTION bridget_change_logged();
        """),
    ]

    /// The newest version this build knows.
    static var latest: Int { migrations.count }

    /// The tables the migrations make, `bridget_schema` included: what a Bridget schema may hold.
    static let tableNames: Set<String> = [
        "bridget_schema", "bridges", "events", "history_version", "sync_runs", "import_checkpoints", "opening_models",
        "routes", "traffic_flows", "kept_answers", "change_log", "alerts", "alert_outbox", "alert_attempts",
        "live_feed", "store_source",
    ]

    /// Brings the settings' schema to the latest version in one transaction, holding a lock so that processes
    /// opening the same new store take turns. Refuses another application's tables and a newer schema.
    static func migrate(_ connection: PostgresConnection, settings: PostgresStoreSettings, logger: Logger) async throws {
        let schema = settings.schema
        try await connection.query("BEGIN", logger: logger)
        do {
            let key = lockKey("migrate", schema: schema)
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockClass), \(key))", logger: logger)
            var tables: [String] = []
            for try await name in try await connection.query(
                // pg_tables lists every table, also those this role may not read (information_schema would hide them).
                "SELECT tablename::text FROM pg_catalog.pg_tables WHERE schemaname = \(schema)", logger: logger
            ).decode(String.self) { tables.append(name) }
            let store = settings.description
            var version = 0
            if tables.contains("bridget_schema") {
                for try await found in try await connection.query(
                    "SELECT coalesce(max(version), 0)::bigint FROM bridget_schema", logger: logger
                ).decode(Int64.self) { version = Int(found) }
                if version > latest { throw PostgresStoreError.newer(store: store, version: version, known: latest) }
            } else if !tables.isEmpty {
                throw PostgresStoreError.foreign(store: store, tables: tables.sorted())
            } else {
                // The schema's name is checked to be a plain identifier (`PostgresStoreSettings`), so it can be written
                // (quoted: it may still be a reserved word).
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\""), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE TABLE "\(schema)".bridget_schema (
                        version     integer PRIMARY KEY,
                        description text NOT NULL,
                        applied_at  timestamptz NOT NULL DEFAULT now()
                    )
                    """), logger: logger)
            }
            for (index, migration) in migrations.enumerated() where index + 1 > version {
                // One statement a query (the extended protocol runs one at a time); none holds a ";" at a line's end.
                for statement in migration.sql.components(separatedBy: ";\n")
                    where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO bridget_schema (version, description) VALUES (\(index + 1), \(migration.description))",
                    logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
