#!/usr/bin/env bash
# Side by side: `leakui goroutines` against panicparse's `pp` on one goroutine dump
# (default: a generated debug=2 dump of 50,000 goroutines). Prints both group counts and
# the time ratio. pp is installed from the Go module proxy into the work folder.
# Run from anywhere:  bench/goroutines-vs-pp.sh [DUMP]
source "$(dirname "$0")/lib.sh"
DUMP=${1:-}
if [ -z "$DUMP" ]; then
	DUMP=$WORK/dump-50k.txt
	[ -s "$DUMP" ] || generate gendump -n 50000 -depth 4 -debug 2 >"$DUMP"
fi
[ -x "$WORK/bin/pp" ] || GOBIN=$WORK/bin go install github.com/maruel/panicparse/v2/cmd/pp@v2.5.0
build_leakui
groups=$("$LEAKUI" goroutines -json "$DUMP" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"], "goroutines in", len(d["groups"]), "groups")')
echo "leakui: $groups"
RUNS=${RUNS_PP:-1}
p=$(median_seconds "$WORK/bin/pp" -no-color -aggressive -parse=false -rebase=false "$DUMP")
RUNS=${RUNS_LEAKUI:-5}
l=$(median_seconds "$LEAKUI" goroutines "$DUMP")
echo "pp -aggressive: ${p}s; leakui goroutines: ${l}s"
echo "peak RSS pp: $(peak_kib "$WORK/bin/pp" -no-color -aggressive -parse=false -rebase=false "$DUMP") KiB; leakui: $(peak_kib "$LEAKUI" goroutines "$DUMP") KiB"
echo "leakui/pp: $(ratio "$l" "$p")"
