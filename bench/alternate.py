#!/usr/bin/env python3
"""Runs two commands alternately and prints each one's median wall time, median CPU time
(user + system) and peak RSS.

Usage: alternate.py RUNS OUT NAME_A CMD_A... -- NAME_B CMD_B...

Each command runs once to warm up, then RUNS times, A and B in turn, so that a machine
whose speed drifts (a shared one) slows both sides alike. Output goes to the file OUT,
never /dev/null (GNU grep stops at the first match when it sees /dev/null). Prints one
line per command: NAME wall_seconds cpu_seconds peak_kib (medians; the peak is the
largest of the runs). CPU time is the child's rusage, to the microsecond. Exits non-zero
when a run fails.
"""
import os
import statistics
import subprocess
import sys
import time


def run(cmd, out):
    with open(out, "wb") as f:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"alternate.py: {' '.join(cmd)} exited {p.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main():
    args = sys.argv[1:]
    if len(args) < 6 or "--" not in args:
        sys.exit(__doc__)
    runs, out = int(args[0]), args[1]
    cut = args.index("--")
    sides = [args[2:cut], args[cut + 1:]]
    results = {i: [] for i in range(2)}
    for side in sides:
        run(side[1:], out)  # warm-up
    for _ in range(runs):
        for i, side in enumerate(sides):
            results[i].append(run(side[1:], out))
    for i, side in enumerate(sides):
        r = results[i]
        print(f"{side[0]} {statistics.median(x[0] for x in r):.3f} "
              f"{statistics.median(x[1] for x in r):.3f} {max(x[2] for x in r)}")


main()
