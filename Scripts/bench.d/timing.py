"""Times whole commands: median wall-clock seconds over N runs (after one warm-up run of each).

Usage: timing.py RUNS -- CMD ARGS…          prints the command's median in seconds
       timing.py RUNS -- CMD1 ARGS… ::: CMD2 ARGS…
                                            several commands, run as they are (no shell); each median, one per line
       timing.py RUNS --shell CMD1 CMD2…    each CMD a bash command line; prints each median, one per line

With several commands, the runs are interleaved (round r runs every command, starting at a different one each
round), so a machine that slows down or speeds up during the bench moves every figure alike, not just the figures
timed last.
"""
import statistics
import subprocess
import sys
import time


def run(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


runs = int(sys.argv[1])
if sys.argv[2] == "--shell":
    commands = [["bash", "-c", line] for line in sys.argv[3:]]
else:
    commands = [[]]
    for word in sys.argv[sys.argv.index("--") + 1:]:
        if word == ":::":
            commands.append([])
        else:
            commands[-1].append(word)
for command in commands:
    run(command)
samples = [[] for _ in commands]
for round_ in range(runs):
    for step in range(len(commands)):
        index = (round_ + step) % len(commands)
        samples[index].append(run(commands[index]))
for series in samples:
    print(f"{statistics.median(series):.4f}")
