"""Times whole commands: median wall-clock seconds over N runs (after one warm-up run).

Usage: timing.py RUNS -- CMD ARGS…   prints the median in seconds
"""
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
command = sys.argv[sys.argv.index("--") + 1:]
subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
samples = []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples.append(time.perf_counter() - start)
print(f"{statistics.median(samples):.4f}")
