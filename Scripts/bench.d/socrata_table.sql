-- The baselines' table: the Socrata row's eight text columns, keyed like Bridget's events (bridge, opening)
-- and indexed by opening time, as Bridget's is. WITHOUT ROWID, as Bridget's events table.
CREATE TABLE rows (
    entitytype    TEXT,
    entityname    TEXT,
    entityid      TEXT NOT NULL,
    opendatetime  TEXT NOT NULL,
    closedatetime TEXT,
    minutesopen   TEXT,
    latitude      TEXT,
    longitude     TEXT,
    PRIMARY KEY (entityid, opendatetime)
) WITHOUT ROWID;
CREATE INDEX rows_by_time ON rows (opendatetime);
