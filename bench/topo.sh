#!/bin/sh
# bench/topo.sh [BUILD_DIR] - time pd2bw-topo on a generated 16-GPU
# NVSwitch node (target: under 200 ms to map) and on merging 1024 node
# files (target: under 2 s).  Build first, without sanitizers:
#   make B=build/rel && sh bench/topo.sh build/rel
set -eu
B=${1:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) ;; *) B=$TOP/$B ;; esac
T=$B/pd2bw-topo
[ -x "$T" ] || { echo "bench/topo.sh: no $T; build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/topo_gen" "$TOP/bench/topo_gen.c" -lhwloc
"$tmp/topo_gen" "$tmp/n16.xml" nvlink=switch gpus=16 per_switch=4 \
	nvswitches=12 links=6 nics=4 device=1db8 host=n16

now_ns() { date +%s%N; }

runs=20
t0=$(now_ns)
i=0
while [ $i -lt $runs ]; do
	"$T" -i "$tmp/n16.xml" --sysfs "$TOP/tests/data/topo/sysfs-mesh8" \
		-n "$tmp/node.yaml" -o "$tmp/cluster.yaml"
	i=$((i + 1))
done
t1=$(now_ns)
map_ms=$(( (t1 - t0) / runs / 1000000 ))

mkdir "$tmp/nodes"
i=0
while [ $i -lt 1024 ]; do
	name=$(printf 'n%04d' $i)
	sed "s/^host: .*/host: $name/" "$tmp/node.yaml" >"$tmp/nodes/$name.yaml"
	i=$((i + 1))
done
t0=$(now_ns)
"$T" merge "$tmp"/nodes/*.yaml -o "$tmp/merged.yaml"
t1=$(now_ns)
merge_ms=$(( (t1 - t0) / 1000000 ))

verdict() { [ "$1" -lt "$2" ] && echo ok || echo SLOW; }
echo "map 16-GPU NVSwitch node (XML, node + cluster file): $map_ms ms" \
	"per run, mean of $runs (target < 200 ms: $(verdict $map_ms 200))"
echo "merge 1024 node files of 16 GPUs: $merge_ms ms" \
	"(target < 2000 ms: $(verdict $merge_ms 2000))"
grep -E '^(nodes|gpus_per_node):' "$tmp/merged.yaml"
