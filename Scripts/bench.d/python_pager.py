"""Baseline: a plain Python pager over a Socrata endpoint (urllib + json), writing each page to SQLite.

Usage: python_pager.py BASE_URL DATABASE PAGE_SIZE   (prints the rows stored)
Pages with $order=opendatetime,:id and $limit/$offset until a short page, as Bridget does; same table as the
import baselines, WAL and synchronous=NORMAL, a commit per page.
"""
import json
import pathlib
import sqlite3
import sys
import urllib.parse
import urllib.request

COLUMNS = ("entitytype", "entityname", "entityid", "opendatetime", "closedatetime", "minutesopen", "latitude", "longitude")
base, database, page_size = sys.argv[1], sys.argv[2], int(sys.argv[3])
connection = sqlite3.connect(database)
connection.execute("PRAGMA journal_mode=WAL")
connection.execute("PRAGMA synchronous=NORMAL")
connection.executescript((pathlib.Path(__file__).parent / "socrata_table.sql").read_text())
insert = f"INSERT OR IGNORE INTO rows VALUES ({', '.join('?' * len(COLUMNS))})"
offset = 0
while True:
    query = urllib.parse.urlencode({"$order": "opendatetime,:id", "$limit": page_size, "$offset": offset})
    with urllib.request.urlopen(f"{base}/resource/gm8h-9449.json?{query}", timeout=60) as response:
        rows = json.load(response)
    connection.executemany(insert, [tuple(row.get(column) for column in COLUMNS) for row in rows])
    connection.commit()
    offset += len(rows)
    if len(rows) < page_size:
        break
print(connection.execute("SELECT count(*) FROM rows").fetchone()[0])
