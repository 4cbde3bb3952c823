#!/usr/bin/env bash
# Side by side: leakui's diff flame view of BASE → TARGET, uncached (a server
# started on a store that holds the pair, asked for the page once), against the
# flame graph of `go tool pprof -http -diff_base=BASE TARGET` (started, asked
# for /ui/flamegraph once). Each side is timed from the server's start to the
# page's last byte and its stop (bench/serveonce), with the CPU seconds and
# peak RSS of the server's processes; then each side's page alone.
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
side_by_side pprof "${PPROF[@]}" :: leakui "${LEAKUI_VIEW[@]}"
echo "go tool pprof -http, flame graph: ${WALL_pprof}s; leakui, diff flame view: ${WALL_leakui}s (start to page to stop, medians of $RUNS, run in turn)"
echo "CPU seconds pprof: $CPU_pprof; leakui: $CPU_leakui"
echo "peak RSS pprof: $PEAK_pprof KiB; leakui: $PEAK_leakui KiB"
echo "leakui/pprof: $(ratio "$WALL_leakui" "$WALL_pprof") (CPU $(ratio "$CPU_leakui" "$CPU_pprof"), peak RSS $(ratio "$PEAK_leakui" "$PEAK_pprof"))"
# The page alone: from the connection accepted to its last byte, and the CPU
# seconds the server spent meanwhile (pprof parsed the pair before it listened;
# leakui parses and builds the trees for the page).
echo "pprof page alone: $("${PPROF[@]}" 2>/dev/null)"
echo "leakui page alone: $("${LEAKUI_VIEW[@]}" 2>/dev/null)"
