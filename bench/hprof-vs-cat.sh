#!/usr/bin/env bash
# Side by side: `leakui hprof` (histogram, dominator tree, suspects, native memory) against
# `cat` reading the same heap dump, and against the `leakui hprof` of another commit (BASE,
# default main; BASE= skips it), built from this repository's history. The default dump
# (about 1.1 GB, 15 million objects) is made on demand by analyze/hprof/testdata/BigHeap.java
# on the JDK and kept in the work folder; it is not committed. Prints each side's median wall
# time, CPU seconds and peak RSS, the ratios to cat's time and to the dump's size, then how
# long `leakui hprof` takes to stop after a SIGINT at several points of its analysis and
# what it leaves in its temporary folder.
# Run from anywhere:  [RUNS=3] [BASE=main] bench/hprof-vs-cat.sh [DUMP]
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
BASE=${BASE-main}
sides=(cat cat "$DUMP" :: leakui "$LEAKUI" hprof -progress never "$DUMP")
if [ -n "$BASE" ]; then
	rm -rf "$WORK/base-src"
	mkdir -p "$WORK/base-src"
	git -C "$ROOT" archive "$BASE" | tar -x -C "$WORK/base-src"
	go build -C "$WORK/base-src" -o "$WORK/leakui-base" ./cmd/leakui
	rm -rf "$WORK/base-src"
	sides+=(:: base "$WORK/leakui-base" hprof "$DUMP")
fi
size=$(stat -c %s "$DUMP")
echo "dump: $DUMP, $size bytes"
"$LEAKUI" hprof -json -n 1 -progress never "$DUMP" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("{:,} objects, {:,} bytes reachable, {} suspects".format(d["objects"], d["reachable"], len(d["suspects"])))'
RUNS=${RUNS:-3}
side_by_side "${sides[@]}"
row() { # NAME WALL CPU PEAK_KIB
	printf '%-14s wall %8.2f s  CPU %8.2f s  peak RSS %7d MiB  %5.2f× the dump  %5.2f× cat time\n' "$1" "$2" "$3" $(($4 / 1024)) \
		"$(ratio $(($4 * 1024)) "$size")" "$(ratio "$2" "$WALL_cat")"
}
row cat "$WALL_cat" "$CPU_cat" "$PEAK_cat"
row "leakui hprof" "$WALL_leakui" "$CPU_leakui" "$PEAK_leakui"
if [ -n "$BASE" ]; then
	row "at $BASE" "$WALL_base" "$CPU_base" "$PEAK_base"
	echo "this tree / $BASE: wall $(ratio "$WALL_leakui" "$WALL_base")×, CPU $(ratio "$CPU_leakui" "$CPU_base")×, peak RSS $(ratio "$PEAK_leakui" "$PEAK_base")×"
fi

# Cancelling: a SIGINT at several points; the time until the process is gone, the stage it
# was in (its last progress line) and the files left in its -tmp folder.
for at in ${CANCEL_AT:-1 3 6 10 15 20}; do
	tmp=$WORK/cancel-tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	"$LEAKUI" hprof -progress always -tmp "$tmp" "$DUMP" >"$WORK/cancel.out" 2>"$WORK/cancel.err" &
	pid=$!
	sleep "$at"
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid" || true
		echo "SIGINT after ${at}s: the analysis had ended"
		continue
	fi
	s=$(date +%s%N)
	kill -INT "$pid"
	wait "$pid" || true
	e=$(date +%s%N)
	stage=$(tr '\r' '\n' <"$WORK/cancel.err" | grep -v '^$' | grep -v 'stopped\|cancel' | tail -n 1 | cut -c1-60)
	echo "SIGINT after ${at}s (${stage}): gone in $(((e - s) / 1000000)) ms, $(find "$tmp" -type f | wc -l) files left in -tmp"
done
rm -rf "$WORK/cancel-tmp"
