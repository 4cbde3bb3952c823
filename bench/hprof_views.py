#!/usr/bin/env python3
"""Measures what a heap dump report costs its readers on a real `leakui serve`.

Usage: hprof_views.py LEAKUI WORKDIR NAME=DUMP [NAME=DUMP ...]

Starts LEAKUI serve (GOMEMLIMIT=1GiB, -debug-pprof) on a fresh data directory,
uploads each dump in turn and waits for its analysis, then for each report
measures: the analysis's wall time and the server's largest heap in use while it
ran; the stored summary's bytes (read from the SQLite file); and for each view
(the page, the JSON, the Markdown, the dominators page of the first suspect's
accumulation point, the dominators JSON of the top, the first suspect's paged
path), its status, bytes, median wall time of RUNS GETs, the server's CPU
seconds and largest heap in use for one GET, and the statuses and wall time of 8
parallel GETs. Then the dashboard's median time with every report stored, and
`leakui hprof` on each dump: its output bytes (counted, never kept), wall and
CPU time. A GET reads at most CAP bytes (default 1 GiB) and gives up after
TIMEOUT seconds (default 120): the numbers of a runaway view are lower bounds.
Prints one table; timing is measured, never asserted.
"""
import http.client
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

RUNS = int(os.environ.get("RUNS", "3"))
PARALLEL = int(os.environ.get("PARALLEL", "8"))
# SKIP names views not to measure (comma-separated: page, json, markdown, dominators-top,
# dominators, path), for a build whose views of a dump would take the server down.
SKIP = set(filter(None, os.environ.get("SKIP", "").split(",")))
CAP = int(os.environ.get("CAP", str(1 << 30)))
TIMEOUT = float(os.environ.get("TIMEOUT", "120"))
CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def peak_rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) << 10
    return 0


class Server:
    def __init__(self, leakui, data):
        env = dict(os.environ, GOMEMLIMIT="1GiB")
        self.p = subprocess.Popen([leakui, "serve", "-addr", "127.0.0.1:0", "-data", data, "-upload-rate", "-1",
                                   "-debug-pprof", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=open(data + ".log", "wb"),
                                  env=env, text=True)
        self.base = self.p.stdout.readline().strip().removeprefix("leakui listening on ")
        self.debug = self.p.stdout.readline().strip().removeprefix("leakui debug endpoint on ").removesuffix("/debug/pprof/")
        u = urllib.parse.urlsplit(self.base)
        self.host, self.port = u.hostname, u.port
        self.data = data

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()

    def get(self, path, timeout=TIMEOUT):
        """GETs path; returns (status, bytes read, seconds), reading at most CAP bytes."""
        start = time.perf_counter()
        try:
            c = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
            c.request("GET", path)
            r = c.getresponse()
            n = 0
            while n < CAP:
                b = r.read(1 << 20)
                if not b:
                    break
                n += len(b)
                if time.perf_counter() - start > timeout:
                    break
            c.close()
            return r.status, n, time.perf_counter() - start
        except Exception as e:  # a timeout or a dead server
            return f"error: {e.__class__.__name__}", 0, time.perf_counter() - start

    def heap_inuse(self):
        try:
            c = http.client.HTTPConnection(urllib.parse.urlsplit(self.debug).hostname, urllib.parse.urlsplit(self.debug).port, timeout=5)
            c.request("GET", "/debug/vars")
            return json.loads(c.getresponse().read())["memstats"]["HeapInuse"]
        except Exception:
            return 0

    def gc(self):
        try:
            c = http.client.HTTPConnection(urllib.parse.urlsplit(self.debug).hostname, urllib.parse.urlsplit(self.debug).port, timeout=30)
            c.request("GET", "/debug/pprof/heap?gc=1")
            c.getresponse().read()
        except Exception:
            pass


class HeapWatch:
    def __init__(self, s):
        self.s, self.max, self.stop_ = s, 0, threading.Event()
        self.t = threading.Thread(target=self.run)
        self.t.start()

    def run(self):
        while not self.stop_.is_set():
            self.max = max(self.max, self.s.heap_inuse())
            self.stop_.wait(0.02)

    def end(self):
        self.stop_.set()
        self.t.join()
        return self.max


def upload(s, path):
    boundary = "leakuibench"
    name = os.path.basename(path)
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    size = len(head) + os.path.getsize(path) + len(tail)
    c = http.client.HTTPConnection(s.host, s.port, timeout=600)
    c.putrequest("POST", "/api/artifacts")
    c.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    c.putheader("Content-Length", str(size))
    c.putheader("Accept", "application/json")
    c.endheaders()
    c.send(head)
    with open(path, "rb") as f:
        while b := f.read(1 << 20):
            c.send(b)
    c.send(tail)
    r = c.getresponse()
    doc = json.loads(r.read())
    if r.status not in (201, 202):
        sys.exit(f"upload of {path}: {r.status} {doc}")
    return doc["report_id"]


def wait_analysis(s, rid):
    """Follows /r/{id}/events to its end event; returns the status it ends with."""
    c = http.client.HTTPConnection(s.host, s.port, timeout=900)
    c.request("GET", f"/r/{rid}/events")
    r = c.getresponse()
    event, status = "", ""
    for raw in r:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "end":
            status = json.loads(line[6:]).get("status", "")
            break
    c.close()
    return status


def fmt_bytes(n):
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000


def measure_view(s, path):
    pid = s.p.pid
    s.gc()
    watch = HeapWatch(s)
    cpu0 = cpu_seconds(pid)
    status, n, first = s.get(path)
    cpu = cpu_seconds(pid) - cpu0
    heap = watch.end()
    times = [first]
    if status == 200:
        for _ in range(RUNS - 1):
            times.append(s.get(path)[2])
    # PARALLEL GETs at once.
    results = [None] * PARALLEL
    def one(i):
        results[i] = s.get(path)
    start = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(PARALLEL)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    par = time.perf_counter() - start
    statuses = sorted({str(r[0]) for r in results})
    alive = s.p.poll() is None
    return dict(status=status, bytes=n, median=statistics.median(times), cpu=cpu, heap=heap,
                parallel="/".join(statuses), parallel_s=par, alive=alive)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    leakui, work = sys.argv[1], sys.argv[2]
    dumps = [a.split("=", 1) for a in sys.argv[3:]]
    data = os.path.join(work, "data")
    subprocess.run(["rm", "-rf", data, data + ".log"], check=True)
    os.makedirs(data)
    s = Server(leakui, data)
    rows = []
    try:
        for name, path in dumps:
            s.gc()
            watch = HeapWatch(s)
            start = time.perf_counter()
            cpu0 = cpu_seconds(s.p.pid)
            rid = upload(s, path)
            status = wait_analysis(s, rid)
            took, cpu = time.perf_counter() - start, cpu_seconds(s.p.pid) - cpu0
            heap = watch.end()
            db = sqlite3.connect(f"file:{os.path.join(data, 'leakui.db')}?mode=ro", uri=True)
            summary = db.execute("SELECT length(summary) FROM reports WHERE id = ?", (rid,)).fetchone()[0]
            db.close()
            print(f"{name}: {fmt_bytes(os.path.getsize(path))} dump, analysis {status} in {took:.1f} s ({cpu:.1f} CPU s), "
                  f"heap in use at most {heap >> 20} MiB, peak RSS so far {peak_rss(s.p.pid) >> 20} MiB, summary {fmt_bytes(summary)}", flush=True)
            views = [("page", f"/r/{rid}"), ("json", f"/api/reports/{rid}"), ("markdown", f"/r/{rid}.md"),
                     ("dominators-top", f"/r/{rid}/dominators.json")]
            # The first suspect's accumulation point, as the page links it.
            c = http.client.HTTPConnection(s.host, s.port, timeout=TIMEOUT)
            c.request("GET", f"/r/{rid}")
            head = c.getresponse().read(CAP)
            c.close()
            m = re.search(rb"dominators\?node=(\d+)", head)
            head = None
            if m:
                node = m.group(1).decode()
                views.append(("dominators", f"/r/{rid}/dominators?node={node}"))
            views.append(("path", f"/r/{rid}/paths/0"))
            for vname, vpath in views:
                if vname in SKIP:
                    continue
                r = measure_view(s, vpath)
                r.update(name=name, view=vname)
                rows.append(r)
                print(f"  {vname:16s} {r['status']!s:>5} {fmt_bytes(r['bytes']):>10} median {r['median']:7.3f} s "
                      f"{r['cpu']:6.2f} CPU s heap {r['heap'] >> 20:5d} MiB | {PARALLEL} at once: {r['parallel']} in {r['parallel_s']:.2f} s"
                      + ("" if r["alive"] else "  THE SERVER DIED"), flush=True)
                if not r["alive"]:
                    return
        # The dashboard with every report stored.
        cpu0 = cpu_seconds(s.p.pid)
        status, n, _ = s.get("/")
        cpu = cpu_seconds(s.p.pid) - cpu0
        times = [s.get("/")[2] for _ in range(max(RUNS, 5))]
        print(f"dashboard with {len(dumps)} reports: {status}, {fmt_bytes(n)}, median {statistics.median(times) * 1000:.1f} ms, "
              f"{cpu:.2f} CPU s for one", flush=True)
        print(f"server peak RSS {peak_rss(s.p.pid) >> 20} MiB", flush=True)
    finally:
        s.stop()
    # leakui hprof on each dump, its output counted, never kept; stopped past 4 × CAP bytes
    # or TIMEOUT seconds.
    for name, path in dumps:
        start = time.perf_counter()
        p = subprocess.Popen([leakui, "hprof", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        stopped = threading.Event()
        def watchdog():
            if not stopped.wait(TIMEOUT):
                p.kill()
        threading.Thread(target=watchdog, daemon=True).start()
        n, killed = 0, False
        while b := p.stdout.read1(1 << 20):
            n += len(b)
            if n > 4 * CAP:
                p.kill()
                killed = True
                break
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        stopped.set()
        took = time.perf_counter() - start
        killed = killed or p.returncode < 0
        print(f"leakui hprof {name}: {fmt_bytes(n)}{' (stopped)' if killed else ''} in {took:.1f} s "
              f"(user {usage.ru_utime:.2f} s, system {usage.ru_stime:.2f} s), peak RSS {usage.ru_maxrss >> 10} MiB", flush=True)


if __name__ == "__main__":
    main()
