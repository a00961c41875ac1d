#!/bin/sh
# plan.sh - planner speed and memory: the full search for a 128-layer model
# on 8 to 16384 GPUs (one core), and PipeDream's gnmt_large on 16 GPUs.
# Prints the median of 5 runs of the search's CPU time (GLPK's share)
# and the peak RSS.
#
#   sh bench/plan.sh [BUILD_DIR]      (default build; run `make` first)
#   GNMT=path/to/graph.txt sh bench/plan.sh   (default: ../shared fixture)
set -eu
B=${1:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PLAN=$TOP/$B/pd2bw-plan
[ -x "$PLAN" ] || { echo "plan.sh: build first (make B=$B)" >&2; exit 1; }
MODEL=$TOP/bench/data/gpt-128l.yaml

# run ARGS...: median search ms, its GLPK share and max RSS over 5 runs.
run() {
	for i in 1 2 3 4 5; do
		"$PLAN" "$@" -q --stats 2>&1 >/dev/null |
			sed -n 's/.*in \([0-9.]*\) ms, of which GLPK \([0-9.]*\) ms.*peak RSS \([0-9.]*\) MiB/\1 \2 \3/p'
	done | sort -n | awk '{ t[NR] = $1; g[NR] = $2; if ($3 > m) m = $3 }
		END { printf "%10.1f ms %8.1f ms %8.1f MiB\n", t[3], g[3], m }'
}

# wall ARGS...: median wall-clock ms of the whole command over 5 runs.
wall() {
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$PLAN" "$@" -q >/dev/null
		e=$(date +%s%N)
		echo $(( (e - s) / 1000 ))
	done | sort -n | awk 'NR == 3 { printf "%10.1f ms wall\n", $1 / 1000 }'
}

for mode in paper full; do
	if [ $mode = paper ]; then
		echo "128-layer GPT (h 8192, s 2048), dgx-h100 nodes: the paper's"
		echo "search (t = 1), all schedules, recompute none+full, 7"
		echo "microbatch sizes, GLPK on the 10 best; median of 5"
		extra="--tp 1"
	else
		echo
		echo "The same with tensor parallelism (t = 1, 2, 4, 8, sequence"
		echo "parallel or not), recompute none+selective+full,"
		echo "interleaving 1, 2, 4"
		extra="-r none,selective,full --interleave 1,2,4"
	fi
	printf '%8s %8s %s\n' GPUs batch "    search      GLPK     peak RSS"
	for n in 1 8 64 128 512 1024 2048; do
		for batch in 1024 16384; do
			printf '%8d %8d ' $((n * 8)) $batch
			# shellcheck disable=SC2086
			run "$MODEL" -c dgx-h100:$n -B $batch $extra
		done
	done
done

GNMT=${GNMT:-$TOP/../shared/fixtures/pipedream/gnmt_large/graph.txt}
if [ -f "$GNMT" ]; then
	echo
	echo "PipeDream gnmt_large, 16 GPUs (p3.16xlarge:2), batch 1024:"
	printf '  search  '; run "$GNMT" -c p3.16xlarge:2 -B 1024
	printf '  command '; wall "$GNMT" -c p3.16xlarge:2 -B 1024
else
	echo "gnmt_large profile not found (set GNMT=path/to/graph.txt)"
fi
