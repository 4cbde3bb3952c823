#!/usr/bin/env bash
# Side by side: `leakui work recovery` over the same KAFKA-3933 log (the default shape:
# 4 partitions x 20 segments x 500 gzip batches of 20 records, message format v0) with
# each variant, under the quiet heap (GOGC=off, the default) and with the collector on
# (-quiet-heap=false). Prints each run's median wall and CPU time, its peak RSS and the
# deep iterators it left open. The log is written once into the work folder
# (-write-only) and recovered again by every run.
# Run from anywhere:  bench/recovery-variants.sh
source "$(dirname "$0")/lib.sh"
build_leakui
DIR=$WORK/recovery-log
if [ ! -s "$DIR/recovery-point-offset-checkpoint" ]; then
	rm -rf "$DIR"
	"$LEAKUI" work recovery -write-only -dir "$DIR" >"$WORK/recovery-write.out"
fi
sides=()
for v in leaky close drain header; do
	for heap in true false; do
		name=${v}_$([ "$heap" = true ] && echo quiet || echo gc)
		[ ${#sides[@]} -gt 0 ] && sides+=(::)
		sides+=("$name" "$LEAKUI" work recovery -dir "$DIR" -variant "$v" -quiet-heap="$heap")
	done
done
side_by_side "${sides[@]}"
printf '%-14s %10s %10s %14s %s\n' run wall_s cpu_s peak_rss_MiB "iterators left open"
for v in leaky close drain header; do
	for h in quiet gc; do
		name=${v}_$h
		wall=WALL_$name cpu=CPU_$name peak=PEAK_$name
		open=$("$LEAKUI" work recovery -dir "$DIR" -variant "$v" -quiet-heap=$([ $h = quiet ] && echo true || echo false) -json |
			python3 -c 'import json,sys; e=[json.loads(l) for l in sys.stdin if l.strip()]; d=[x for x in e if x.get("event")=="done"][-1]; print(d["iterators_open"])')
		printf '%-14s %10s %10s %14s %s\n' "$name" "${!wall}" "${!cpu}" "$(awk -v k="${!peak}" 'BEGIN {printf "%.0f", k / 1024}')" "$open"
	done
done
echo "drain/leaky peak RSS, quiet heap: $(ratio "$PEAK_drain_quiet" "$PEAK_leaky_quiet"); with the collector on: $(ratio "$PEAK_drain_gc" "$PEAK_leaky_gc")"
