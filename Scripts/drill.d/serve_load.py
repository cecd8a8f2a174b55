#!/usr/bin/env python3
"""Clients for `Scripts/drill serve` (Scripts/drill.d/serve): idle connections, and steady traffic whose every answer
is recorded.

  serve_load.py hold URL N SECONDS
      Opens N connections to URL's host and port and sends nothing on them for SECONDS; prints one JSON line:
      {"opened", "refused", "closedByServer", "closedAfter": [first, last] seconds}.
  serve_load.py load URL SECONDS CONCURRENCY OUT PATH...
      CONCURRENCY clients GET the PATHs in turn for SECONDS, each on a kept-alive connection (a new one after an
      error), with a 60 s timeout (a hang detector: the drill judges the time each answer took). Writes a JSON line
      per request to OUT: {"at" (seconds since the start), "path", "status" (0: no answer), "retryAfter",
      "seconds", "error"}; prints a one-line summary.
  serve_load.py judge OUT --within S [--allow-503] [--from T] [--until T]
      Reads OUT: every answer between T and T (seconds since the load's start) must be a 200, or with --allow-503 a
      503 carrying Retry-After, and come within S seconds. Prints the counts; exit 1, with the first violations,
      when one is not.
"""
import http.client
import json
import resource
import socket
import sys
import threading
import time
from urllib.parse import urlparse


def raise_file_limit(wanted):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def hold(url, count, seconds):
    target = urlparse(url)
    raise_file_limit(count + 256)
    sockets, refused = [], 0
    for _ in range(count):
        try:
            connection = socket.create_connection((target.hostname, target.port), timeout=10)
            connection.setblocking(False)
            sockets.append(connection)
        except OSError:
            refused += 1
    started = time.monotonic()
    closed = {}
    while time.monotonic() - started < seconds and len(closed) < len(sockets):
        for index, connection in enumerate(sockets):
            if index in closed:
                continue
            try:
                if connection.recv(1) == b"":
                    closed[index] = time.monotonic() - started
            except BlockingIOError:
                pass
            except OSError:
                closed[index] = time.monotonic() - started
        time.sleep(0.2)
    for connection in sockets:
        connection.close()
    times = sorted(closed.values())
    print(json.dumps({"opened": len(sockets), "refused": refused, "closedByServer": len(closed),
                      "closedAfter": [round(times[0], 1), round(times[-1], 1)] if times else None}))


def load(url, seconds, concurrency, out, paths):
    target = urlparse(url)
    started = time.monotonic()
    records, lock = [], threading.Lock()

    def client(offset):
        connection = None
        turn = offset
        while time.monotonic() - started < seconds:
            path = paths[turn % len(paths)]
            turn += 1
            began = time.monotonic()
            record = {"at": round(began - started, 3), "path": path, "status": 0, "retryAfter": None, "error": None}
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                record["status"] = response.status
                record["retryAfter"] = response.getheader("Retry-After")
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException) as error:
                record["error"] = f"{type(error).__name__}: {error}"
                if connection is not None:
                    connection.close()
                connection = None
                time.sleep(0.05)
            record["seconds"] = round(time.monotonic() - began, 3)
            with lock:
                records.append(record)

    threads = [threading.Thread(target=client, args=(index,)) for index in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with open(out, "w") as file:
        for record in sorted(records, key=lambda item: item["at"]):
            file.write(json.dumps(record) + "\n")
    statuses = {}
    for record in records:
        statuses[record["status"]] = statuses.get(record["status"], 0) + 1
    slowest = max((record["seconds"] for record in records), default=0)
    print(f"{len(records)} requests in {seconds} s by {concurrency} clients; statuses "
          + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
          + f"; slowest {slowest:.2f} s")


def judge(out, within, allow_503, since, until):
    records = [json.loads(line) for line in open(out)]
    chosen = [record for record in records if since <= record["at"] <= until]
    bad = []
    for record in chosen:
        good_status = record["status"] == 200 or (allow_503 and record["status"] == 503 and record["retryAfter"])
        if not good_status or record["seconds"] > within:
            bad.append(record)
    statuses = {}
    for record in chosen:
        key = f"{record['status']}" + ("+Retry-After" if record["retryAfter"] else "")
        statuses[key] = statuses.get(key, 0) + 1
    slowest = max((record["seconds"] for record in chosen), default=0)
    span = f"from {since:g} s to {until:g} s" if until != float("inf") else f"from {since:g} s to the end"
    print(f"{len(chosen)} answers {span}: "
          + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
          + f"; slowest {slowest:.2f} s")
    if bad or not chosen:
        for record in bad[:5]:
            print("  not allowed:", json.dumps(record))
        sys.exit(1)


def main(arguments):
    if len(arguments) >= 4 and arguments[0] == "hold":
        hold(arguments[1], int(arguments[2]), float(arguments[3]))
    elif len(arguments) >= 6 and arguments[0] == "load":
        load(arguments[1], float(arguments[2]), int(arguments[3]), arguments[4], arguments[5:])
    elif len(arguments) >= 4 and arguments[0] == "judge" and arguments[2] == "--within":
        rest = arguments[4:]
        since = float(rest[rest.index("--from") + 1]) if "--from" in rest else 0.0
        until = float(rest[rest.index("--until") + 1]) if "--until" in rest else float("inf")
        judge(arguments[1], float(arguments[3]), "--allow-503" in rest, since, until)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main(sys.argv[1:])
