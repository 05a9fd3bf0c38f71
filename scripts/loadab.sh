#!/usr/bin/env bash
# loadab.sh OLD NEW [PAIRS] [PLAYERS] [DURATION]
#
# The load curve's A/B: builds termarena at two commits (and the load tool
# at NEW, so both are measured alike), then runs them in turn, PAIRS times
# (OLD NEW, NEW OLD, ... so drift hits both), each on a fresh server pinned
# to core 0 with one P and the tool on core 1, as BENCHMARKS.md's load runs
# are. It prints each run's steady server CPU per frame, frames on
# schedule, input→frame p99, mean bytes per frame and the server's RSS
# and heap per session at the end, then the pairs' NEW/OLD CPU-per-frame
# ratios and their median. On a shared machine the
# absolute figures move with the neighbours; read the ratios.
#
#   scripts/loadab.sh 973820c HEAD 5 500 30s
#
# Needs a 2-core Linux host with taskset, curl and the Go toolchain; uses
# only the project's own load tool. Exit status 2 on bad usage.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: scripts/loadab.sh OLD NEW [PAIRS=3] [PLAYERS=500] [DURATION=30s]" >&2
	exit 2
fi
OLD=$1 NEW=$2 PAIRS=${3:-3} PLAYERS=${4:-500} DURATION=${5:-30s}
repo=$(git rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/loadab.XXXXXX")
# LOADAB_KEEP=1 keeps the builds, server logs and the tool's full reports.
if [ -z "${LOADAB_KEEP:-}" ]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "reports and logs in $work"
fi

build() { # build REV NAME
	mkdir -p "$work/src-$2"
	git -C "$repo" archive "$1" | tar -x -C "$work/src-$2"
	(cd "$work/src-$2" && go build -o "$work/$2" .)
}
build "$OLD" old
build "$NEW" new
(cd "$work/src-new" && go build -o "$work/tload" ./cmd/termarena-load)
echo "old = $(git -C "$repo" rev-parse --short "$OLD"), new = $(git -C "$repo" rev-parse --short "$NEW"); $PAIRS pairs, $PLAYERS players, $DURATION each"

run() { # run NAME INDEX: prints "name cpu_us_per_frame on_schedule_pct ift_p99_ms bytes_per_frame rss heap"
	local port=$((20000 + RANDOM % 20000)) data="$work/data-$1-$2"
	local mport=$((port + 1))
	mkdir -p "$data"
	# The web face on a free port: its default, :8080, is taken by any
	# other server on the host, and the run would measure nothing.
	TERMARENA_HTTP=127.0.0.1:0 GOMAXPROCS=1 taskset -c 0 "$work/$1" --listen "127.0.0.1:$port" --data "$data" --max-conns-per-ip 0 \
		--metrics-listen "127.0.0.1:$mport" >"$work/server-$1-$2.log" 2>&1 &
	local pid=$!
	for _ in $(seq 150); do
		curl -s --max-time 1 -o /dev/null "http://127.0.0.1:$mport/metrics" && break
		sleep 0.2
	done
	taskset -c 1 "$work/tload" --addr "127.0.0.1:$port" --players "$PLAYERS" --ramp 100 --duration "$DURATION" \
		--mode queue --verify 2 --server-pid "$pid" --metrics "http://127.0.0.1:$mport/metrics" \
		>"$work/report-$1-$2.txt" 2>/dev/null || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	awk -v name="$1" '
		BEGIN { cpu = sched = ift = bpf = rss = heap = "-" }
		/server CPU µs\/frame \(steady\)/ { cpu = $NF }
		/frames on schedule/ { sched = $(NF-3) }
		/server input→frame p50 \/ p99 \(steady\)/ { ift = ($NF == "-") ? "-" : $(NF-2) }
		/mean bytes\/frame/ { bpf = $NF }
		/RSS \/ heap per session/ && $NF == "sessions)" { rss = $(NF-4); heap = $(NF-2) }
		END { printf "%s %s %s %s %s %s %s\n", name, cpu, sched, ift, bpf, rss, heap }' "$work/report-$1-$2.txt"
}

printf '%-5s %-4s %16s %12s %18s %10s %12s %12s\n' pair run "server µs/frame" "on schedule" "input→frame p99" "B/frame" "RSS/session" "heap/session"
ratios=()
for i in $(seq "$PAIRS"); do
	if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
	declare -A cpu=()
	for b in $order; do
		read -r name c s f bpf rss heap < <(run "$b" "$i")
		cpu[$name]=$c
		printf '%-5s %-4s %16s %12s %18s %10s %12s %12s\n' "$i" "$name" "$c" "$s" "$f" "$bpf" "$rss" "$heap"
	done
	ratios+=("$(awk -v a="${cpu[old]}" -v b="${cpu[new]}" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", b / a; else print "nan" }')")
	unset cpu
done
printf 'new/old server CPU per frame, by pair: %s\n' "${ratios[*]}"
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ r[NR] = $1 } END {
	m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
	printf "median new/old: %.3f (%d pairs)\n", m, NR }'
