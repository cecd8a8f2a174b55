"""Samples a process's resident memory (VmRSS in /proc/PID/status) once a second for a number of seconds.

Usage: rss_sampler.py PID SECONDS   prints one JSON line: every sample (kB), the peak of the first 10 s, the peak of
the last 10 s and the final sample. Stops early, with what it has, if the process ends.
"""
import json
import sys
import time

pid, seconds = int(sys.argv[1]), int(sys.argv[2])


def rss_kb():
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise LookupError("no VmRSS")


start = time.monotonic()
samples = []  # (seconds since start, kB)
for tick in range(seconds + 1):
    # Sleep to the next whole second since start, so a slow read does not make the series drift.
    time.sleep(max(0.0, start + tick - time.monotonic()))
    try:
        samples.append((round(time.monotonic() - start, 2), rss_kb()))
    except (OSError, LookupError):
        break
first = [kb for at, kb in samples if at <= 10]
last = [kb for at, kb in samples if at >= seconds - 10]
print(json.dumps({
    "samples": [kb for _, kb in samples],
    "first_peak_kb": max(first) if first else None,
    "last_peak_kb": max(last) if last else None,
    "final_kb": samples[-1][1] if samples else None,
    "complete": len(samples) == seconds + 1,
}))
