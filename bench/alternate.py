#!/usr/bin/env python3
"""Runs commands in turn and prints each one's median wall time, median CPU time
(user + system) and peak RSS.

Usage: alternate.py RUNS OUT NAME CMD... [:: NAME CMD...]

Each command runs once to warm up (unless WARMUP=0 is in the environment: a run of
minutes warms nothing a second one needs), then RUNS times, one after the other in every round, so
that a machine whose speed drifts (a shared one) slows every side alike. Output goes to a
file, never /dev/null (GNU grep stops at the first match when it sees /dev/null). Prints
one line per command: NAME wall_seconds cpu_seconds peak_kib (medians; the peak is the
largest of the runs, from /usr/bin/time). CPU time is the child's rusage from wait4, to the
microsecond. Exits non-zero when a run fails. Each side's last output is kept in OUT.NAME.
"""
import os
import statistics
import subprocess
import sys
import time


def run(cmd, out):
    # The peak RSS comes from /usr/bin/time, which forks the command from a small process: a
    # child forked from Python would count Python's pages (about 14 MiB) until its exec.
    peak = out + ".peak"
    with open(out, "wb") as f:
        start = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", peak] + cmd, stdout=f, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"alternate.py: {' '.join(cmd)} exited {code}")
    with open(peak) as f:
        kib = int(f.read().split()[-1])
    return wall, usage.ru_utime + usage.ru_stime, kib


def main():
    args = sys.argv[1:]
    if len(args) < 4:
        sys.exit(__doc__)
    runs, out = int(args[0]), args[1]
    sides, side = [], []
    for a in args[2:] + ["::"]:
        if a == "::":
            if len(side) < 2:
                sys.exit(__doc__)
            sides.append(side)
            side = []
        else:
            side.append(a)
    results = [[] for _ in sides]
    if os.environ.get("WARMUP", "1") != "0":
        for side in sides:
                run(side[1:], f"{out}.{side[0]}")  # warm-up
    for _ in range(runs):
        for i, side in enumerate(sides):
            results[i].append(run(side[1:], f"{out}.{side[0]}"))
    for side, r in zip(sides, results):
        print(f"{side[0]} {statistics.median(x[0] for x in r):.3f} "
              f"{statistics.median(x[1] for x in r):.3f} {max(x[2] for x in r)}")


main()
