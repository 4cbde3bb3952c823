#!/usr/bin/env bash
# Side by side: the overview's pass (`leakui count -overview`: levels, lines over time,
# message templates) against `leakui count` with the four patterns of count-vs-grep.sh, on
# the same generated Samza-style log. Checks that the two most frequent templates count what
# GNU grep -cE of their regexps counts, then runs the two alternately (bench/alternate.py)
# and prints the time ratio, the CPU-time ratio and both peak RSS.
# Run from anywhere:  bench/templates-vs-count.sh [MiB]
source "$(dirname "$0")/lib.sh"
MB=${1:-1024}
LOG=$WORK/samza-$MB.log
[ -s "$LOG" ] || generate genlog -mb "$MB" -seed 7 >"$LOG"
build_leakui
P=("Starting the checkpoint SystemConsumer" "Stopping system consumer" ": Consumer started" "Stopping Samza kafkaConsumer")
args=()
for p in "${P[@]}"; do args+=(-e "$p"); done
"$LEAKUI" count -json -overview "$LOG" >"$WORK/overview.json"
for i in 0 1; do
	re=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["overview"]["templates"][int(sys.argv[2])]["regexp"])' "$WORK/overview.json" "$i")
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["overview"]["templates"][int(sys.argv[2])]["count"])' "$WORK/overview.json" "$i")
	want=$(LC_ALL=C grep -cE -- "$re" "$LOG")
	[ "$want" = "$got" ] || { echo "template $i ($re): grep -cE $want, leakui $got"; exit 1; }
done
side_by_side count "$LEAKUI" count -json "${args[@]}" "$LOG" :: overview "$LEAKUI" count -json -overview "$LOG"
echo "log: $MB MiB; leakui count (4 patterns): ${WALL_count}s; leakui count -overview: ${WALL_overview}s (medians of $RUNS, run in turn)"
echo "CPU (user + system): count ${CPU_count}s; overview ${CPU_overview}s; overview/count: $(ratio "$CPU_overview" "$CPU_count")"
echo "peak RSS count: $PEAK_count KiB; overview: $PEAK_overview KiB"
echo "overview/count: $(ratio "$WALL_overview" "$WALL_count")"
