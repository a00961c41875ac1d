#!/bin/sh
# capacity.sh - speed of "pd2bw-plan capacity": Llama 3 70B on 64 cluster
# sizes (1 to 128 nodes of 8, the default sweep) of each of 4 GPU types
# (H100-SXM, H200, A100-80GB, L40S), every size a full search over
# schedules, width, depth, tensor-parallel degree, microbatch and
# recomputation (a type's sizes share a memo, see search.h: the
# candidates listed once for the largest size, the partitions solved,
# what the gates proved, GLPK's answers).  Prints the median of 3 runs of
# wall-clock and CPU time.  JOBS=1: 4.43 G instructions (valgrind
# --tool=callgrind, the figure to compare: CPU time on the shared 2-core
# machine moves by 0.1 s from run to run), about 0.40 s CPU where the
# system lends transparent huge pages on request (pd2bw-plan asks them
# for its heap: about 1,000 page faults), about 0.55 s where not (13,500
# page faults; a process denied them by prctl(PR_SET_THP_DISABLE));
# 4.70 G, 0.45 s and 0.6 s before the sizes kept what the best-first
# loop and the exact search's floors proved for one another (cap).  The
# history is in git log.  The target is 0.5 s.
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
