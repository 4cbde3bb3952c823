#!/usr/bin/env bash
# Side by side: `leakui count` with four patterns against GNU grep -cF with one, on a
# generated Samza-style log. Checks that every count equals grep's, then prints the
# time ratio. Run from anywhere:  bench/count-vs-grep.sh [MiB]
source "$(dirname "$0")/lib.sh"
MB=${1:-1024}
LOG=$WORK/samza-$MB.log
[ -s "$LOG" ] || generate genlog -mb "$MB" -seed 7 >"$LOG"
build_leakui
P=("Starting the checkpoint SystemConsumer" "Stopping system consumer" ": Consumer started" "Stopping Samza kafkaConsumer")
args=()
for p in "${P[@]}"; do args+=(-e "$p"); done
json=$("$LEAKUI" count -json "${args[@]}" "$LOG")
for p in "${P[@]}"; do
	want=$(LC_ALL=C grep -cF -- "$p" "$LOG")
	got=$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); p=sys.argv[1]; print(next(x["count"] for x in d["patterns"] if x["pattern"]==p))' "$p")
	[ "$want" = "$got" ] || { echo "count mismatch for '$p': grep $want, leakui $got"; exit 1; }
done
sides=(grep env LC_ALL=C grep -cF -- "${P[0]}" "$LOG" :: leakui "$LEAKUI" count -json "${args[@]}" "$LOG")
if command -v rg >/dev/null; then sides+=(:: rg rg -cF -- "${P[0]}" "$LOG"); fi
side_by_side "${sides[@]}"
echo "log: $MB MiB; grep -cF (1 pattern): ${WALL_grep}s; leakui count (4 patterns): ${WALL_leakui}s (medians of $RUNS, run in turn)"
echo "CPU (user + system): grep ${CPU_grep}s; leakui ${CPU_leakui}s"
if [ -n "${WALL_rg:-}" ]; then echo "rg -cF (1 pattern): ${WALL_rg}s; leakui/rg: $(ratio "$WALL_leakui" "$WALL_rg")"; fi
echo "peak RSS grep: $PEAK_grep KiB; leakui: $PEAK_leakui KiB"
echo "leakui/grep: $(ratio "$WALL_leakui" "$WALL_grep")"
