#!/usr/bin/env bash
# Side by side: `leakui hprof` (histogram, dominator tree, suspects, native memory) against
# `cat` reading the same heap dump, and against the `leakui hprof` of another commit (BASE,
# default main; BASE= skips it), built from this repository's history. The default dump
# (about 1.1 GB, 15 million objects) is made on demand by analyze/hprof/testdata/BigHeap.java
# on the JDK and kept in the work folder; it is not committed. HELD_OUT=1 times a dump of about
# 10 GB and 150 million objects instead, made on demand by bench/heldout/ServiceHeap.java (a
# service's sessions and a leak of unclosed consumers; no test reads it; SESSIONS, default
# 2,400,000; it needs 12 GB for the JVM and 10 GB of disk) and removed after the run. Prints each side's median wall
# time, CPU seconds and peak RSS, the ratios to cat's time and to the dump's size, then how
# long `leakui hprof` takes to stop after a SIGINT at several points of its analysis and
# what it leaves in its temporary folder.
# Run from anywhere:  [RUNS=3] [BASE=main] [HELD_OUT=1] bench/hprof-vs-cat.sh [DUMP]
source "$(dirname "$0")/lib.sh"
DUMP=${1:-}
HELD_OUT=${HELD_OUT:-}
if [ -z "$DUMP" ]; then
	need java "apt-get install -y openjdk-17-jdk-headless"
	need javac "apt-get install -y openjdk-17-jdk-headless"
	need jcmd "apt-get install -y openjdk-17-jdk-headless"
	# make_dump NAME SOURCE XMX ARGS...: runs the Java program SOURCE until it prints
	# "ready", dumps its heap with jcmd into $WORK/NAME.hprof and stops it.
	make_dump() {
		local name=$1 src=$2 xmx=$3 pid
		shift 3
		DUMP=$WORK/$name.hprof
		[ -s "$DUMP" ] && return
		mkdir -p "$WORK/$name"
		javac -d "$WORK/$name" "$src"
		java -XX:+UseParallelGC "-Xmx$xmx" -cp "$WORK/$name" "$(basename "$src" .java)" "$@" >"$WORK/$name/out" &
		pid=$!
		until grep -q ready "$WORK/$name/out" 2>/dev/null; do
			kill -0 "$pid" || { echo "$src ended early" >&2; exit 1; }
			sleep 1
		done
		jcmd "$pid" GC.heap_dump "$DUMP.tmp" >/dev/null
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		mv "$DUMP.tmp" "$DUMP"
	}
	if [ -n "$HELD_OUT" ]; then
		# The held-out program: about 10 GB and 150 million objects, removed after the run
		# (KEEP=1 keeps it); one timed run of each side, no warm-up.
		make_dump serviceheap "$BENCH_DIR/heldout/ServiceHeap.java" 12g "${SESSIONS:-2400000}"
		[ -n "${KEEP:-}" ] || trap 'rm -f "$DUMP"' EXIT
		export WARMUP=0
		RUNS=${RUNS_HELD_OUT:-1}
		CANCEL_AT=${CANCEL_AT:-10 60}
	else
		make_dump bigheap "$ROOT/analyze/hprof/testdata/BigHeap.java" 3g "${ENTRIES:-3750000}" "${PAYLOAD:-150}"
	fi
fi
build_leakui
BASE=${BASE-main}
sides=(cat cat "$DUMP" :: leakui "$LEAKUI" hprof -json -n 1 -progress never "$DUMP")
if [ -n "$BASE" ]; then
	rm -rf "$WORK/base-src"
	mkdir -p "$WORK/base-src"
	git -C "$ROOT" archive "$BASE" | tar -x -C "$WORK/base-src"
	go build -C "$WORK/base-src" -o "$WORK/leakui-base" ./cmd/leakui
	rm -rf "$WORK/base-src"
	sides+=(:: base "$WORK/leakui-base" hprof -json -n 1 "$DUMP")
fi
size=$(stat -c %s "$DUMP")
RUNS=${RUNS:-3}
side_by_side "${sides[@]}"
rm -f "$WORK/alternate.out.cat" # a copy of the dump
echo "dump: $DUMP, $size bytes"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("{:,} objects, {:,} bytes reachable, {} suspects".format(d["objects"], d["reachable"], len(d["suspects"])))' "$WORK/alternate.out.leakui"
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
