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
g=$(median_seconds env LC_ALL=C grep -cF -- "${P[0]}" "$LOG")
l=$(median_seconds "$LEAKUI" count -json "${args[@]}" "$LOG")
echo "log: $MB MiB; grep -cF (1 pattern): ${g}s; leakui count (4 patterns): ${l}s"
if command -v rg >/dev/null; then
	r=$(median_seconds rg -cF -- "${P[0]}" "$LOG")
	echo "rg -cF (1 pattern): ${r}s; leakui/rg: $(ratio "$l" "$r")"
fi
echo "peak RSS grep: $(peak_kib env LC_ALL=C grep -cF -- "${P[0]}" "$LOG") KiB; leakui: $(peak_kib "$LEAKUI" count -json "${args[@]}" "$LOG") KiB"
echo "leakui/grep: $(ratio "$l" "$g")"
