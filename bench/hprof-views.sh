#!/usr/bin/env bash
# What a heap dump report costs its readers: the valid dumps of pathological shapes that
# internal/hostile writes (a reference chain of a million objects, a ring as long, one array
# of ten million references, a class hierarchy a hundred thousand classes deep, twenty
# thousand zlib streams held by finalizers), uploaded to a real `leakui serve` under
# GOMEMLIMIT=1GiB; for each, the analysis's time and heap, the stored summary's bytes, and
# every view's bytes, median time, CPU seconds and heap (the page, JSON, Markdown, the
# dominators of the first suspect's accumulation point, the dominator tree's top, the
# suspect's path), 8 GETs of each at once, the dashboard's time with every report stored,
# and `leakui hprof`'s output and time. The goals: each view under 1 s and 2 MB, the
# dashboard under 50 ms, `leakui hprof` under 1 MB.
# Run from anywhere:  bench/hprof-views.sh [SHAPE...]   (default: all; SHAPES: chain ring
# reverse-chain wide deep-classes native-holder). LEAKUI=path measures another build.
source "$(dirname "$0")/lib.sh"
if [ -z "${LEAKUI:-}" ]; then
	build_leakui
fi
go build -C "$ROOT" -o "$WORK/genhprof" ./bench/genhprof
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(chain ring reverse-chain wide deep-classes native-holder)
args=()
for s in "${shapes[@]}"; do
	case $s in
	wide) n=10000000 ;;
	deep-classes) n=100000 ;;
	native-holder) n=20000 ;;
	*) n=1000000 ;;
	esac
	f=$WORK/hostile-$s.hprof
	[ -s "$f" ] || "$WORK/genhprof" -shape "$s" -n "$n" -o "$f"
	args+=("$s=$f")
done
python3 "$BENCH_DIR/hprof_views.py" "$LEAKUI" "$WORK" "${args[@]}"
