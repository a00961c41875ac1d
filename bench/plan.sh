#!/bin/sh
# plan.sh - planner speed and memory: the full search for a 128-layer model
# on 8 to 131,072 GPUs (1,048,576 where the build allows clusters that
# large, see CLUSTER_MAX_GPUS), GPT-3 175B on 1024 GPUs, DeepSeek-V3 with
# every parallelism (experts, context, ZeRO, offload) on 1024 and 16384
# GPUs of NVL72 racks, and PipeDream's
# gnmt_large and resnext101 on 16 GPUs, on one thread (-j 1).
# Prints the median of 5 runs of the search's CPU time (GLPK's share), the
# candidates searched beside it and the time per candidate, the peak RSS,
# and the growth exponent of the time between one size and the next
# (log(t2 / t1) / log(N2 / N1): 1 is linear in the GPUs, 0 flat).
#
#   sh bench/plan.sh [BUILD_DIR]      (default build; run `make` first)
#   GNMT=path/to/graph.txt RESNEXT=path/to/graph.txt sh bench/plan.sh
#                                     (default: ../shared fixtures)
#   QUICK=1 sh bench/plan.sh          (only the "everything on" sizes)
#   INSTR=1 sh bench/plan.sh          (also the instructions of the GPT-3
#                                     and PipeDream commands, by valgrind's
#                                     callgrind: a figure that does not move
#                                     with the machine's speed, for comparing
#                                     two builds run on different days)
set -eu
B=${1:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PLAN=$TOP/$B/pd2bw-plan
[ -x "$PLAN" ] || { echo "plan.sh: build first (make B=$B)" >&2; exit 1; }
MODEL=$TOP/bench/data/gpt-128l.yaml
PREV_N= PREV_T=

# run ARGS...: median search ms, its GLPK share, candidates, us per
# candidate and max RSS over 5 runs; sets T to the median ms.
run() {
	line=$(for i in 1 2 3 4 5; do
		"$PLAN" "$@" -j 1 -q --stats 2>&1 >/dev/null |
			sed -n 's/.*searched \([0-9]*\) configurations.* in \([0-9.]*\) ms, of which GLPK \([0-9.]*\) ms.*peak RSS \([0-9.]*\) MiB/\2 \3 \1 \4/p'
	done | sort -n | awk '{ t[NR] = $1; g[NR] = $2; n = $3; if ($4 > m) m = $4 }
		END { printf "%10.1f ms %8.1f ms %9d %8.3f us %7.1f MiB\n",
			t[3], g[3], n, n ? t[3] * 1000 / n : 0, m }')
	T=$(echo "$line" | awk '{ print $1 }')
	printf '%s' "$line"
}

# growth N: the exponent since the previous size (on one line with run's)
growth() {
	if [ -n "$PREV_N" ]; then
		awk -v t1="$PREV_T" -v t2="$T" -v n1="$PREV_N" -v n2="$1" \
			'BEGIN { if (t1 > 0 && t2 > 0) printf "%7.2f", log(t2 / t1) / log(n2 / n1) }'
	fi
	echo
	PREV_N=$1 PREV_T=$T
}

# wall ARGS...: median wall-clock ms of the whole command over 5 runs.
wall() {
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$PLAN" "$@" -q >/dev/null 2>&1 || true
		e=$(date +%s%N)
		echo $(( (e - s) / 1000 ))
	done | sort -n | awk 'NR == 3 { printf "%10.1f ms wall\n", $1 / 1000 }'
}

# instr ARGS...: with INSTR=1 and valgrind, the instructions the whole
# command executes on one thread (deterministic: no clock decides a path).
instr() {
	[ -n "${INSTR:-}" ] || return 0
	if ! command -v valgrind >/dev/null 2>&1; then
		echo "  instructions: valgrind not found"
		return 0
	fi
	f=$(mktemp)
	valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$PLAN" "$@" -j 1 -q 2>&1 >/dev/null |
		sed -n 's/.*I *refs: *\([0-9,]*\).*/  instructions: \1 (callgrind, the whole command)/p'
	rm -f "$f"
}

header() {
	printf '%8s %8s %s\n' GPUs batch "    search      GLPK candidates  per cand.   peak RSS  growth"
}

for mode in paper full; do
	if [ $mode = paper ]; then
		[ -z "${QUICK:-}" ] || continue
		echo "128-layer GPT (h 8192, s 2048), dgx-h100 nodes: the paper's"
		echo "search (t = 1), all schedules, recompute none+full, 7"
		echo "microbatch sizes, GLPK on the 10 best; median of 5"
		extra="--tp 1 -r none,full --interleave 1 --optimizer-sharding off"
		sizes="1 8 64 128 512 1024 2048"
	else
		echo
		echo "The same with tensor parallelism (t = 1, 2, 4, 8, sequence"
		echo "parallel or not), recompute none+selective+full,"
		echo "interleaving 1, 2, 4, ZeRO-1 or not (everything on)"
		extra="-r none,selective,full --interleave 1,2,4"
		sizes="1 8 64 128 512 1024 2048 8192 16384 131072"
	fi
	for batch in 1024 16384; do
		header
		PREV_N=
		for n in $sizes; do
			rc=0
			"$PLAN" "$MODEL" -c dgx-h100:$n -B 1 -s none --tp 1 \
				-q >/dev/null 2>&1 || rc=$?
			if [ $rc -eq 2 ]; then
				printf '%8d %8d %s\n' $((n * 8)) $batch \
					"    refused: more GPUs than this build plans for"
				continue
			fi
			printf '%8d %8d ' $((n * 8)) $batch
			# shellcheck disable=SC2086
			run "$MODEL" -c dgx-h100:$n -B $batch $extra
			growth $((n * 8))
		done
	done
done

echo
echo "GPT-3 175B on 1024 GPUs (dgx-h100:128), batch 1536, everything on"
echo "(recompute none+selective+full, interleave 1,2,4, ZeRO-1 or not):"
header
printf '%8d %8d ' 1024 1536
run "$TOP/models/gpt3-175b.yaml" -c dgx-h100:128 -B 1536 \
	-r none,selective,full --interleave 1,2,4 --optimizer-sharding both
echo
instr "$TOP/models/gpt3-175b.yaml" -c dgx-h100:128 -B 1536 \
	-r none,selective,full --interleave 1,2,4 --optimizer-sharding both

echo
echo "DeepSeek-V3 (MoE, 256 experts) on GB200 NVL72 racks, batch 16384, MXFP8,"
echo "everything on: t 1,2,4,8 with SP or not, expert parallelism 1 to 64"
echo "(the powers of two up to the rack), context parallelism 1,2, ZeRO 0-3,"
echo "activation offload or not, recompute none+selective+full, interleave:"
header
PREV_N= PREV_T=
for n in 1024 16384; do
	printf '%8d %8d ' $n 16384
	run "$TOP/models/deepseek-v3.yaml" -c gb200-nvl72:$((n / 72 + 1)) \
		--max-gpus $n -B 16384 --precision fp8 --fp8-recipe mxfp8 \
		--runtime megatron-core:flex-dispatcher --context-parallel 1,2 \
		--zero all --offload both
	growth $n
done

PD="-r none,full --interleave 1 --optimizer-sharding off"
for f in gnmt_large resnext101; do
	if [ $f = gnmt_large ]; then
		G=${GNMT:-$TOP/../shared/fixtures/pipedream/gnmt_large/graph.txt}
	else
		G=${RESNEXT:-$TOP/../shared/fixtures/pipedream/resnext101/graph.txt}
	fi
	if [ -f "$G" ]; then
		echo
		# PipeDream's own space, which its optimizer searches:
		# no interleaving, no optimizer sharding, no selective
		# recomputation (pd2bw-plan's defaults add all three)
		echo "PipeDream $f, 16 GPUs (p3.16xlarge:2), batch 1024, PipeDream's space:"
		# shellcheck disable=SC2086
		printf '  search  '; run "$G" -c p3.16xlarge:2 -B 1024 $PD; echo
		# shellcheck disable=SC2086
		printf '  command '; wall "$G" -c p3.16xlarge:2 -B 1024 $PD
		# shellcheck disable=SC2086
		instr "$G" -c p3.16xlarge:2 -B 1024 $PD
	else
		echo "$f profile not found (set GNMT= or RESNEXT=path/to/graph.txt)"
	fi
done
