#!/usr/bin/env bash
# Side by side: `leakui top` against `go tool pprof -top` on one profile (default: a
# generated heap profile with 262,144 distinct stacks). Checks that the total and the
# flat value of the top function agree, then prints the time ratio.
# Run from anywhere:  bench/top-vs-pprof.sh [PROFILE] [SAMPLE_INDEX]
source "$(dirname "$0")/lib.sh"
PROF=${1:-}
SI=${2:-inuse_space}
if [ -z "$PROF" ]; then
	[ -s "$WORK/gp9/target.pb.gz" ] || { mkdir -p "$WORK/gp9"; generate genprofile -depth 9 -out "$WORK/gp9"; }
	PROF=$WORK/gp9/target.pb.gz
fi
build_leakui
pp_top=$(go tool pprof -symbolize=none -unit=B -top -nodecount=1 -nodefraction=0 -sample_index="$SI" "$PROF" 2>/dev/null | awk '/flat%/ {getline; print $1; exit}')
got=$("$LEAKUI" top -json -n 1 -sample_index "$SI" "$PROF")
echo "pprof top-1 flat: $pp_top; leakui: $(printf '%s' "$got" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"][0]["flat"], d["rows"][0]["name"], "total", d["total"], d["unit"])')"
side_by_side pprof go tool pprof -top -sample_index="$SI" "$PROF" :: leakui "$LEAKUI" top -sample_index "$SI" "$PROF"
echo "profile: $PROF; go tool pprof -top: ${WALL_pprof}s; leakui top: ${WALL_leakui}s (medians of $RUNS, run in turn)"
echo "peak RSS pprof: $PEAK_pprof KiB; leakui: $PEAK_leakui KiB"
echo "CPU seconds pprof: $CPU_pprof; leakui: $CPU_leakui"
echo "leakui/pprof: $(ratio "$WALL_leakui" "$WALL_pprof")"
