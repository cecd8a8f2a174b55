"""Baseline: a plain Python import of NDJSON Socrata rows into SQLite (json + sqlite3 executemany).

Usage: python_import.py ROWS.ndjson DATABASE   (the database must not exist; prints the rows stored)
Same table as the sqlite3 shell baseline, WAL and synchronous=NORMAL like Bridget, a commit per 5,000 rows.
"""
import json
import pathlib
import sqlite3
import sys

COLUMNS = ("entitytype", "entityname", "entityid", "opendatetime", "closedatetime", "minutesopen", "latitude", "longitude")
source, database = sys.argv[1], sys.argv[2]
connection = sqlite3.connect(database)
connection.execute("PRAGMA journal_mode=WAL")
connection.execute("PRAGMA synchronous=NORMAL")
connection.executescript((pathlib.Path(__file__).parent / "socrata_table.sql").read_text())
insert = f"INSERT OR IGNORE INTO rows VALUES ({', '.join('?' * len(COLUMNS))})"
batch = []
with open(source, encoding="utf-8") as lines:
    for line in lines:
        if not line.strip():
            continue
        row = json.loads(line)
        batch.append(tuple(row.get(column) for column in COLUMNS))
        if len(batch) == 5000:
            connection.executemany(insert, batch)
            connection.commit()
            batch = []
connection.executemany(insert, batch)
connection.commit()
print(connection.execute("SELECT count(*) FROM rows").fetchone()[0])
