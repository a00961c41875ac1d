#!/bin/sh
# capacity.sh - speed of "pd2bw-plan capacity": Llama 3 70B on 64 cluster
# sizes (1 to 128 nodes of 8, the default sweep) of each of 4 GPU types
# (H100-SXM, H200, A100-80GB, L40S), every size a full search over
# schedules, width, depth, tensor-parallel degree, microbatch and
# recomputation (a type's sizes share a memo of which candidates have a
# partition left under a bound, see search.h).  Prints the median of 3
# runs of wall-clock and CPU time.  JOBS=1: about 1.8 s CPU, 9.40 G
# instructions (callgrind), since exact_fits_rc() bounds GLPK's
# refinements by the recomputation each stage needs to fit its memory
# (13.6 G and 2.2 s measured the same way before, on a shared machine);
# about 2.9 s CPU since the
# search simulates every candidate whose simulated time could beat the
# plan (exact_rest() in search.c; 17.6 G instructions, 15.2 G since
# exact_lb() and exact_fits_tp() bound candidates by what their stages
# add to the compute); before that about 0.88 s CPU on the
# 2-core development machine (6.83 G instructions since the re-scoring
# simulator runs 1F1B in rounds, 7.60 G before; 0.99 s and 8.80 G
# before the uncapped solves that gate GLPK stopped at the first
# placement under the bound, a cut partition was bounded by its
# stages' average cost and the refinement's enumeration turned groups
# away before their templates) since the search refines with GLPK every
# configuration that could beat the plan (1.56 s before the memo kept
# those refinements across sizes; 0.45 s when GLPK refined the best
# alone, 3.0 s before the memo and the brief search); the target is
# 0.5 s.
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
