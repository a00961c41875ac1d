#!/bin/sh
# cpu-profile.sh [BUILD] - time the cpu backend of pd2bw-profile on GPT-2
# XL at microbatches 1 and 2 (the defaults: 1 warm-up, 3 timed runs a
# layer), the figure of the man page.  Prints the estimate the profiler
# gives before it starts, the wall time, and the load of the machine
# before and after (a shared machine makes the figure slower).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$TOP/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "cpus: $(nproc), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
"$B/pd2bw-profile" -b cpu -m 1,2 -q "$TOP/models/gpt2-xl.yaml" \
	-o "$tmp/gpt2-xl.yaml" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
end=$(date +%s)
cat "$tmp/err"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gpt2-xl, cpu backend, microbatches 1,2: $((end - start)) s wall"
grep -E '^ *(- )?(name|fwd_ms|bwd_ms):' "$tmp/gpt2-xl.yaml" | head -12 || true
