#!/usr/bin/env bash
# Side by side: `leakui hprof` (histogram, dominator tree, suspects) against `cat` reading
# the same heap dump. The default dump (about 1 GiB, 15 million objects) is made on demand
# by analyze/hprof/testdata/BigHeap.java on the JDK and kept in the work folder; it is not
# committed. Prints the time of each, the ratio and leakui's peak RSS.
# Run from anywhere:  bench/hprof-vs-cat.sh [DUMP]
source "$(dirname "$0")/lib.sh"
DUMP=${1:-}
if [ -z "$DUMP" ]; then
	need java "apt-get install -y openjdk-17-jdk-headless"
	need javac "apt-get install -y openjdk-17-jdk-headless"
	need jcmd "apt-get install -y openjdk-17-jdk-headless"
	DUMP=$WORK/bigheap.hprof
	if [ ! -s "$DUMP" ]; then
		mkdir -p "$WORK/bigheap"
		javac -d "$WORK/bigheap" "$ROOT/analyze/hprof/testdata/BigHeap.java"
		java -XX:+UseParallelGC -Xmx3g -cp "$WORK/bigheap" BigHeap "${ENTRIES:-3750000}" "${PAYLOAD:-150}" >"$WORK/bigheap/out" &
		pid=$!
		until grep -q ready "$WORK/bigheap/out" 2>/dev/null; do
			kill -0 "$pid" || { echo "BigHeap ended early" >&2; exit 1; }
			sleep 1
		done
		jcmd "$pid" GC.heap_dump "$DUMP.tmp" >/dev/null
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		mv "$DUMP.tmp" "$DUMP"
	fi
fi
build_leakui
echo "dump: $DUMP, $(du -h "$DUMP" | cut -f1)"
"$LEAKUI" hprof -json -n 1 "$DUMP" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("{:,} objects, {:,} bytes reachable, {} suspects".format(d["objects"], d["reachable"], len(d["suspects"])))'
RUNS=${RUNS_CAT:-3}
c=$(median_seconds cat "$DUMP")
RUNS=${RUNS_LEAKUI:-3}
l=$(median_seconds "$LEAKUI" hprof "$DUMP")
echo "cat: ${c}s; leakui hprof: ${l}s"
echo "peak RSS cat: $(peak_kib cat "$DUMP") KiB; leakui: $(peak_kib "$LEAKUI" hprof "$DUMP") KiB"
# CPU seconds (user + system) of one run: on a shared machine the wall time waits for a core.
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >"$WORK/cpu.out" | tail -n 1 | awk '{printf "%.2f\n", $1 + $2}'; }
echo "CPU seconds cat: $(cpu cat "$DUMP"); leakui: $(cpu "$LEAKUI" hprof "$DUMP")"
echo "leakui/cat: $(ratio "$l" "$c")"
