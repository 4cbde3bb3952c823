#!/usr/bin/env bash
# Side by side: leakui's diff flame view of BASE → TARGET, uncached (a server
# started on a store that holds the pair, asked for the page once), against the
# flame graph of `go tool pprof -http -diff_base=BASE TARGET` (started, asked
# for /ui/flamegraph once). Each side is timed from the server's start to the
# page's last byte and its stop (bench/serveonce), with the CPU seconds and
# peak RSS of the server's processes; then each side's page alone. pprof's side
# runs RUNS_PPROF times (default 1) after leakui's RUNS: it takes a minute and 17 GB.
# Default: two generated heap profiles of 1,048,576 stacks of 33 frames,
# 54 and 56 MB decompressed (genprofile -depth 10 -hops 1, about a minute).
# Run from anywhere:  bench/flame-vs-pprof.sh [BASE TARGET] [SAMPLE_INDEX]
source "$(dirname "$0")/lib.sh"
BASE=${1:-}
TARGET=${2:-}
SI=${3:-inuse_space}
if [ -z "$BASE" ]; then
	[ -s "$WORK/gp10h1/target.pb.gz" ] || { mkdir -p "$WORK/gp10h1"; generate genprofile -depth 10 -hops 1 -out "$WORK/gp10h1"; }
	BASE=$WORK/gp10h1/base.pb.gz TARGET=$WORK/gp10h1/target.pb.gz
fi
BASE=$(realpath "$BASE") TARGET=$(realpath "$TARGET")
build_leakui
go build -C "$ROOT" -o "$WORK/serveonce" ./bench/serveonce
SERVEONCE=$WORK/serveonce
for f in "$BASE" "$TARGET"; do
	echo "$(basename "$f"): $(wc -c <"$f") bytes, $(gzip -dc "$f" 2>/dev/null | wc -c || true) decompressed"
done

# leakui's store, holding the pair: uploaded once, by a server that then stops.
DATA=$WORK/flame-vs-pprof-data
rm -rf "$DATA"
REPORT=$("$SERVEONCE" -upload "$BASE" -upload "$TARGET" -- "$LEAKUI" serve -addr '{addr}' -data "$DATA" -lab=false 2>/dev/null)
PAGE="$REPORT?view=flame&si=$SI"
echo "leakui's report: $PAGE"

PPROF=("$SERVEONCE" -get /ui/flamegraph -out "$WORK/pprof-flame.html" -- go tool pprof "-http={addr}" -no_browser -symbolize=none "-sample_index=$SI" "-diff_base=$BASE" "$TARGET")
LEAKUI_VIEW=("$SERVEONCE" -get "$PAGE" -out "$WORK/leakui-flame.html" -- "$LEAKUI" serve -addr '{addr}' -data "$DATA" -lab=false)

# leakui: RUNS runs after a warm-up (bench/alternate.py), then the page alone once more.
side_by_side leakui "${LEAKUI_VIEW[@]}"
LEAKUI_PAGE=$("${LEAKUI_VIEW[@]}" 2>/dev/null)
echo "leakui, diff flame view: ${WALL_leakui}s wall, $CPU_leakui CPU seconds, peak RSS $PEAK_leakui KiB (start to page to stop, medians of $RUNS)"
echo "leakui, the page alone: $LEAKUI_PAGE"

# pprof: RUNS_PPROF runs (default 1, no warm-up: the pair is in the page cache already).
# On the default pair it holds about 17 GB; run it only where that leaves room.
avail=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if [ "${FORCE_PPROF:-0}" != 1 ] && [ "${avail:-0}" -lt $((20 << 20)) ]; then
	echo "go tool pprof -http: not run (it needs about 17 GB on the default pair and $((avail >> 20)) GiB are available; FORCE_PPROF=1 runs it)"
	exit 0
fi
walls=() cpus=() peak=0
for ((i = 0; i < ${RUNS_PPROF:-1}; i++)); do
	PPROF_PAGE=$(/usr/bin/time -f '%e %U %S %M' -o "$WORK/pprof.time" "${PPROF[@]}" 2>/dev/null)
	read -r wall user sys kib <"$WORK/pprof.time"
	walls+=("$wall") cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.3f", u + s}')")
	peak=$((kib > peak ? kib : peak))
done
WALL_pprof=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
CPU_pprof=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "go tool pprof -http, flame graph: ${WALL_pprof}s wall, $CPU_pprof CPU seconds, peak RSS $peak KiB (start to page to stop, median of ${RUNS_PPROF:-1})"
echo "go tool pprof -http, the page alone: $PPROF_PAGE (pprof parses the pair before it listens)"
echo "leakui/pprof: wall $(ratio "$WALL_leakui" "$WALL_pprof"), CPU $(ratio "$CPU_leakui" "$CPU_pprof"), peak RSS $(ratio "$PEAK_leakui" "$peak")"
