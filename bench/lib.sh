# Shared helpers for the side-by-side scripts. Source it; do not run it.
# leakui and the input generators are built from the repository that holds this folder,
# whatever the current directory (arguments naming files stay relative to it).

set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${BENCH_WORK:-${TMPDIR:-/tmp}/leakui-bench}
RUNS=${RUNS:-5}
mkdir -p "$WORK"

# need TOOL HINT: stops with a message naming TOOL and how to install it when it is missing.
need() { command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 is missing (install it: $2)" >&2; exit 2; }; }
need python3 "apt-get install -y python3"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (install it: apt-get install -y time)" >&2; exit 2; }

# generate NAME ARGS...: runs the input generator bench/NAME (its output goes where the caller sends it).
generate() { local name=$1; shift; go run -C "$ROOT" "./bench/$name" "$@"; }

# build_leakui: builds ./cmd/leakui into $WORK/leakui and sets LEAKUI.
build_leakui() {
	go build -C "$ROOT" -o "$WORK/leakui" ./cmd/leakui
	LEAKUI=$WORK/leakui
}

# median_seconds CMD...: runs CMD once to warm up, then $RUNS times; prints the median wall time.
# Output goes to a file, never /dev/null: GNU grep stops at the first match when it sees /dev/null.
median_seconds() {
	local out=$WORK/median.out
	"$@" >"$out" 2>&1 || { echo "command failed: $*" >&2; return 1; }
	local times=() i s e
	for ((i = 0; i < RUNS; i++)); do
		s=$(date +%s%N)
		"$@" >"$out" 2>&1
		e=$(date +%s%N)
		times+=($(((e - s) / 1000)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f\n", a[int((NR+1)/2)]/1e6}'
}

# median_cpu_seconds CMD...: like median_seconds, the median of the user + system CPU time
# (from /usr/bin/time), which a shared machine changes less than the wall time.
median_cpu_seconds() {
	local out=$WORK/median.out
	"$@" >"$out" 2>&1 || { echo "command failed: $*" >&2; return 1; }
	local times=() i
	for ((i = 0; i < RUNS; i++)); do
		times+=($(/usr/bin/time -f '%U %S' "$@" 2>&1 >"$out" | tail -n 1 | awk '{printf "%d\n", ($1 + $2) * 1000}'))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f\n", a[int((NR+1)/2)]/1e3}'
}

# side_by_side NAME CMD... :: NAME CMD... [:: …]: runs the commands in turn, $RUNS rounds after
# a warm-up (bench/alternate.py), so that a machine whose speed drifts slows every side alike,
# and sets WALL_NAME, CPU_NAME (medians, seconds) and PEAK_NAME (KiB) for each.
side_by_side() {
	local out name wall cpu peak
	out=$(python3 "$BENCH_DIR/alternate.py" "$RUNS" "$WORK/alternate.out" "$@") || return 1
	while read -r name wall cpu peak; do
		printf -v "WALL_$name" %s "$wall"
		printf -v "CPU_$name" %s "$cpu"
		printf -v "PEAK_$name" %s "$peak"
	done <<<"$out"
}

# ratio A B: prints A/B with three decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f\n", (b > 0 ? a / b : 0)}'; }

# peak_kib CMD...: peak resident memory of one run, in KiB.
peak_kib() { /usr/bin/time -f '%M' "$@" 2>&1 >"$WORK/peak.out" | tail -n 1; }
