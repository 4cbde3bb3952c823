#!/usr/bin/env bash
# Side by side: `leakui diff BASE TARGET` against `go tool pprof -top -diff_base=BASE TARGET`
# (default: two generated heap profiles with 262,144 stacks, the second with a leak).
# Run from anywhere:  bench/diff-vs-pprof.sh [BASE TARGET] [SAMPLE_INDEX]
source "$(dirname "$0")/lib.sh"
BASE=${1:-}
TARGET=${2:-}
SI=${3:-inuse_space}
if [ -z "$BASE" ]; then
	[ -s "$WORK/gp9/target.pb.gz" ] || { mkdir -p "$WORK/gp9"; generate genprofile -depth 9 -out "$WORK/gp9"; }
	BASE=$WORK/gp9/base.pb.gz TARGET=$WORK/gp9/target.pb.gz
fi
build_leakui
"$LEAKUI" diff -json -n 3 -sample_index "$SI" "$BASE" "$TARGET" | head -c 600; echo
side_by_side pprof go tool pprof -top -sample_index="$SI" -diff_base="$BASE" "$TARGET" :: leakui "$LEAKUI" diff -sample_index "$SI" "$BASE" "$TARGET"
echo "go tool pprof -top -diff_base: ${WALL_pprof}s; leakui diff: ${WALL_leakui}s (medians of $RUNS, run in turn)"
echo "CPU seconds pprof: $CPU_pprof; leakui: $CPU_leakui"
echo "peak RSS pprof: $PEAK_pprof KiB; leakui: $PEAK_leakui KiB"
echo "leakui/pprof: $(ratio "$WALL_leakui" "$WALL_pprof")"
