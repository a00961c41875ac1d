#!/bin/sh
# capacity.sh - speed of "pd2bw-plan capacity": Llama 3 70B on 64 cluster
# sizes (1 to 128 nodes of 8, the default sweep) of each of 4 GPU types
# (H100-SXM, H200, A100-80GB, L40S), every size a full search over
# schedules, width, depth, tensor-parallel degree, microbatch and
# recomputation (a type's sizes share a memo, see search.h: the
# candidates listed once for the largest size, the partitions solved,
# what the gates proved, GLPK's answers).  Prints the median of 3 runs of
# wall-clock and CPU time.  JOBS=1: 5.45 G instructions (callgrind),
# 0.85 s CPU at f4e795a (1.26 s at ab4845f, back to back on the shared
# 2-core machine), since gpt3speed5's repetition of a node's link figures
# (place.c fill_stages(); 5.63 G and 0.95 s before it) and capspeed5: the memo's candidate lists sorted by radix
# and scanned a block of 64 at a time past those on more GPUs, each GPU
# type's memo as large at once as the last one grew, the stages a
# partition or a floor made kept for the sizes after, lb_memo_init()'s
# twins kept, the multiplier that said no last asked first; 6.17 G in
# the default space of ff55a3e, which weighs the sharded optimizer state,
# selective recomputation and 1, 2 or 4 virtual stages too; in the
# earlier space (-r none,full --interleave 1 --optimizer-sharding off)
# about 0.9-1.3 s CPU (the shared 2-core machine's load moves it more
# than the last changes did) and 4.61 G now (4.68 G
# instructions after capspeed4 before the one-stage runtimes of a4f55d5;
# capspeed4: part_fits()'s answers kept as
# bounds, the least memory when nothing fits in two visits, a partition's
# stages kept, a cheaper key hash, exact_fits_tp()'s verdicts kept; 5.20
# G at 7ce9575), since the sizes share the candidate lists,
# exact_lb()'s link bounds, the partitions, exact_gate()'s proofs and
# GLPK's answers (1.5-1.7 s and 8.79 G before, measured back to back on
# the shared 2-core machine).  Earlier: 9.40 G since exact_fits_rc()
# bounds GLPK's refinements by the recomputation each stage needs (13.6
# G, 2.2 s before); 17.6 G, 2.9 s since exact_rest() simulates every
# candidate that could beat the plan (0.88 s, 6.83 G before, when the
# search was not exact for the simulation).  The target is 0.5 s.
#
#   sh bench/capacity.sh [BUILD_DIR]      (default build; run `make` first)
set -eu
B=${1:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PLAN=$TOP/$B/pd2bw-plan
[ -x "$PLAN" ] || { echo "capacity.sh: build first (make B=$B)" >&2; exit 1; }
MODEL=$TOP/models/llama3-70b.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

set -- capacity "$MODEL" --tokens 15T --gpu H100-SXM --gpu H200 \
	--gpu A100-80GB --gpu L40S --max-nodes 128 --steps 64 \
	--price H100-SXM:2.5 --price H200:3.5 --price A100-80GB:1.6 \
	--price L40S:1 --deadline 365 -f csv -o "$TMP/out.csv" -q ${JOBS:+-j $JOBS}

for i in 1 2 3; do
	s=$(date +%s%N)
	/usr/bin/env time -f '%U %S' -o "$TMP/cpu" "$PLAN" "$@"
	e=$(date +%s%N)
	echo "$(( (e - s) / 1000000 )) $(cat "$TMP/cpu")"
done | sort -n | awk 'NR == 2 { printf "%.2f s wall, %.2f s CPU\n",
	$1 / 1000, $2 + $3 }' >"$TMP/fig"

rows=$(($(wc -l <"$TMP/out.csv") - 1))
echo "llama3-70b, 4 GPU types x 64 sizes ($rows plans), median of 3:"
printf '  %s\n' "$(cat "$TMP/fig")"
