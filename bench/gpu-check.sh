#!/bin/sh
# gpu-check.sh - the GPU checks of pd2bw-profile, in one go, under 8 minutes:
# build with CUDA, run the GPU kernel tests (every kernel against the CPU
# reference), time square GEMMs against the peak, profile GPT 1.3B (the
# paper's, seq 512) and GPT-2 XL (fused and unfused attention) on the GPU
# at hand, compare the per-layer sum with whole training steps, measure
# what CUPTI costs, calibrate the analytic model from the kernel
# breakdown, and time the same GPT block and the fused attention kernels
# (bench/sdpa-torch.py) in PyTorch when python3 has torch.  Everything
# goes under $OUT (default output/gpu-check); summary.txt holds the
# figures.
#
#   OUT=/tmp/x sh bench/gpu-check.sh
#
# EMU=1 runs the whole script here, without a GPU, on the emulated CUDA
# backend (pd2bw-profile-emu, test_prof_gpu_emu) with small inputs: the
# way to try the script before a GPU session spends its minutes on it,
#
#   EMU=1 MODEL_A=tests/data/profile/tiny.yaml MB_A=1,2 \
#     MODEL_B=tests/data/profile/tiny-llama.yaml MB_B=1,2 MB_B_SHORT=1 \
#     GEMMS=64 OUT=/tmp/x sh bench/gpu-check.sh
#
# (its figures are host times).  MODEL_A, MODEL_B (paths from the source
# tree), MB_A, MB_B, MB_B_SHORT and GEMMS choose what is measured.
#
# Without nvcc on the machine, a build made elsewhere can be used
# instead: bench/gpu-pack.sh packs one with its libraries (carry
# build/gpu-pack and set B=build/gpu-pack/b), or make B=build/gpu
# tests-build, then carry build/gpu and set B=build/gpu (BUILD=0 uses it
# even where nvcc is: the build there needs pkg-config and the
# libraries' headers).  SUITE=0 leaves out the whole
# test suite, which needs no GPU beyond the kernel tests run before it.
# Missing libraries (libyaml, hwloc, GLPK) are reported; to
# supply them without a network, put the .deb files of libyaml-0-2
# libyaml-dev libhwloc15 libhwloc-dev libglpk40 libglpk-dev (and their
# dependencies) in $DEBS (default shared/debs): they are unpacked under
# $OUT/sysroot and used from there.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$TOP/output/gpu-check}
B=${B:-build/gpu}
DEBS=${DEBS:-$TOP/shared/debs}
GENCODE=${NVCC_GENCODE:--gencode arch=compute_90,code=sm_90}
EMU=${EMU:-0}
# a pack of bench/gpu-pack.sh: prebuilt, with its libraries beside it
case $B in
/*) PACKDIR=$(dirname "$B") ;;
*) PACKDIR=$TOP/$(dirname "$B") ;;
esac
if [ -f "$PACKDIR/gpu-pack" ]; then
	BUILD=${BUILD:-0}
	SUITE=${SUITE:-0}
	LD_LIBRARY_PATH="$PACKDIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export LD_LIBRARY_PATH
fi
BUILD=${BUILD:-1}
SUITE=${SUITE:-1}
MODEL_A=${MODEL_A:-models/gpt-1.3b.yaml}
MB_A=${MB_A:-1,2,4,8}
MODEL_B=${MODEL_B:-models/gpt2-xl.yaml}
MB_B=${MB_B:-1,2,4,8,16}
MB_B_SHORT=${MB_B_SHORT:-1,4,16}
GEMMS=${GEMMS:-4096 8192}
# the catalog entry the measurements are held against: the GPU at hand
# (nvidia-smi's name, "NVIDIA H100 80GB HBM3" -> H100), or GPU=NAME
if [ -z "${GPU:-}" ]; then
	GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null |
		head -1 | sed 's/^NVIDIA //; s/ .*//')
fi
GPU=${GPU:-H200}
A=$(basename "$MODEL_A" .yaml)
XL=$(basename "$MODEL_B" .yaml)
PROG=pd2bw-profile
TEST=test_prof_gpu
if [ "$EMU" = 1 ]; then
	PROG=pd2bw-profile-emu
	TEST=test_prof_gpu_emu
fi
mkdir -p "$OUT"
SUM=$OUT/summary.txt
: >"$SUM"
T0=$(date +%s)

say() {
	printf '%s\n' "$*" | tee -a "$SUM"
}

elapsed() {
	echo $(($(date +%s) - T0))
}

# limit SECONDS CMD...: run with a time limit when timeout(1) exists
limit() {
	s=$1
	shift
	if command -v timeout >/dev/null 2>&1; then
		timeout "$s" "$@"
	else
		"$@"
	fi
}

cd "$TOP" || exit 1
say "# pd2bw gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD 2>/dev/null)"

# ---- the machine ----
{
	uname -a
	nvidia-smi 2>&1 || echo "nvidia-smi: not available"
	command -v nvcc >/dev/null 2>&1 && nvcc --version
	python3 --version 2>&1
} >"$OUT/machine.txt" 2>&1
say "gpu: $(nvidia-smi --query-gpu=name,memory.total,driver_version \
	--format=csv,noheader 2>/dev/null | head -1)"
say "nvcc: $(command -v nvcc || echo none)"

missing=
for h in yaml.h hwloc.h glpk.h; do
	found=0
	for d in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu; do
		[ -f "$d/$h" ] && found=1
	done
	[ $found = 1 ] || missing="$missing $h"
done
if [ -n "$missing" ] && [ -d "$DEBS" ]; then
	say "missing headers:$missing; unpacking $DEBS into $OUT/sysroot"
	mkdir -p "$OUT/sysroot"
	for deb in "$DEBS"/*.deb; do
		[ -f "$deb" ] && dpkg-deb -x "$deb" "$OUT/sysroot"
	done
	SR=$OUT/sysroot
	export CPATH="$SR/usr/include${CPATH:+:$CPATH}"
	export LIBRARY_PATH="$SR/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
	export LD_LIBRARY_PATH="$SR/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	missing=
elif [ -n "$missing" ]; then
	say "missing headers:$missing (install libyaml-dev libhwloc-dev" \
	    "libglpk-dev, or put their .deb files in $DEBS)"
fi

# ---- build ----
if [ "$BUILD" = 1 ] && command -v nvcc >/dev/null 2>&1; then
	J=-j$(nproc 2>/dev/null || echo 4)
	say "build: make B=$B $PROG, then tests-build (sm_90)"
	if ! limit 240 make "$J" B="$B" NVCC_GENCODE="$GENCODE" \
		"$B/$PROG" >"$OUT/build.log" 2>&1; then
		say "BUILD FAILED; see build.log:"
		grep -E "error|Error" "$OUT/build.log" | head -20 | tee -a "$SUM"
		exit 1
	fi
	# the unit tests link every program's archive: not fatal here
	limit 240 make "$J" -k B="$B" NVCC_GENCODE="$GENCODE" tests-build \
		>>"$OUT/build.log" 2>&1 ||
		say "tests-build failed in part (see build.log)"
elif [ -x "$B/$PROG" ]; then
	say "using the prebuilt $B (BUILD=$BUILD)"
else
	say "no nvcc or BUILD=0, and no prebuilt $B/$PROG: nothing to run"
	exit 1
fi
P=$TOP/$B/$PROG
case $B in /*) P=$B/$PROG ;; esac
if ldd "$P" 2>/dev/null | grep -q "not found"; then
	say "pd2bw-profile cannot start, libraries missing:"
	ldd "$P" | grep "not found" | tee -a "$SUM"
	exit 1
fi
$P -V >>"$SUM" 2>&1

# ---- kernel tests ----
say "== GPU kernel tests [$(elapsed) s]"
if [ -x "$(dirname "$P")/tests/$TEST" ]; then
	limit 120 "$(dirname "$P")/tests/$TEST" \
		>"$OUT/test_prof_gpu.txt" 2>&1
	rc=$?
else
	echo "not built" >"$OUT/test_prof_gpu.txt"
	rc=127
fi
say "$TEST: exit $rc, $(grep -c '^ok' "$OUT/test_prof_gpu.txt") ok," \
    "$(grep -c '^not ok' "$OUT/test_prof_gpu.txt") not ok"
grep '^not ok' "$OUT/test_prof_gpu.txt" | head -20 | tee -a "$SUM"
if [ "$SUITE" = 1 ]; then
	limit 120 sh tests/run.sh "$B" >"$OUT/tests.txt" 2>&1
	say "test suite: $(tail -1 "$OUT/tests.txt")"
fi

# ---- the kernels at the head sizes and groupings of other models ----
say "== kernel checks at real head sizes [$(elapsed) s]"
for m in ${CHECK_MODELS:-llama3-8b gpt3-175b}; do
	limit 60 "$P" -b cuda --check-only -v "$TOP/models/$m.yaml" \
		2>"$OUT/$m.check.log"
	say "$m: exit $?, $(grep -c ': ok ' "$OUT/$m.check.log") checks" \
	    "passed, $(grep -c 'check failed' "$OUT/$m.check.log") failed"
done

# ---- the GEMM rate against the dense 16-bit peak ----
say "== GEMM rate [$(elapsed) s]"
for n in $GEMMS; do
	limit 60 "$P" --gemm "$n" -g "$GPU" -w 5 -r 20 2>&1 | tee -a "$SUM"
done

# ---- profiles ----
profile() {
	path=$1 mb=$2
	name=$(basename "$path" .yaml)
	shift 2
	say "== $name, microbatches $mb [$(elapsed) s]"
	t0=$(date +%s.%N)
	limit 150 "$P" -b cuda -v --step -m "$mb" \
		--kernels "$OUT/$name.kernels.yaml" "$@" \
		"$TOP/$path" -o "$OUT/$name.profile.yaml" \
		2>"$OUT/$name.log"
	rc=$?
	t=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }")
	say "exit $rc in $t s"
	pat=": block +b=|step b=|does not fit|allocator|error|fail"
	# (not the passed kernel checks -v lists, which name their error)
	grep -E "$pat|cuda backend|CUPTI" "$OUT/$name.log" |
		grep -v ": ok " | tee -a "$SUM"
}
profile "$MODEL_A" "$MB_A"
profile "$MODEL_B" "$MB_B"

# fused (flash) against unfused attention, GPT-2 XL being a flash model
say "== $XL with unfused attention [$(elapsed) s]"
limit 120 "$P" -b cuda -v --no-check --attention unfused -m "$MB_B_SHORT" \
	"$TOP/$MODEL_B" -o "$OUT/$XL.unfused.yaml" \
	2>"$OUT/$XL.unfused.log"
grep -E ": block +b=|does not fit|error" "$OUT/$XL.unfused.log" |
	tee -a "$SUM"

# CUPTI cost: the same block timings with events alone
say "== $XL without CUPTI [$(elapsed) s]"
limit 120 "$P" -b cuda -v --no-cupti --no-check -m "$MB_B" \
	"$TOP/$MODEL_B" -o "$OUT/$XL.nocupti.yaml" \
	2>"$OUT/$XL.nocupti.log"
grep -E ": block +b=" "$OUT/$XL.nocupti.log" | tee -a "$SUM"
awk '/: block +b=/ { f = $0; sub(/.*fwd +/, "", f); split(f, a, " ");
	g = $0; sub(/.*bwd +/, "", g); split(g, c, " ");
	if (FILENAME ~ /nocupti/) off[++n] = a[1] + c[1];
	else on[++m] = a[1] + c[1] }
     END { for (i = 1; i <= n && i <= m; i++)
	printf "CUPTI cost, block point %d: %+.2f%%\n", i,
	       100 * (on[i] - off[i]) / off[i] }' \
	"$OUT/$XL.log" "$OUT/$XL.nocupti.log" | tee -a "$SUM"

# analytic versus measured
for path in "$MODEL_A" "$MODEL_B"; do
	m=$(basename "$path" .yaml)
	[ -s "$OUT/$m.profile.yaml" ] || continue
	k=
	[ -s "$OUT/$m.kernels.yaml" ] && k="--kernels $OUT/$m.kernels.yaml"
	# shellcheck disable=SC2086
	"$P" --calibrate "$OUT/$m.profile.yaml" $k -g "$GPU" \
		--gpus-out "$OUT/$m.gpus.yaml" \
		"$TOP/$path" -o "$OUT/$m.calibration.yaml" \
		2>>"$OUT/$m.log" &&
		say "$m calibration ($GPU): $(sed -n '/^efficiency/,$p' \
			"$OUT/$m.calibration.yaml" | tr -s ' \n' ' ')"
done

# ---- PyTorch reference: one GPT-2 XL block, bf16 ----
if python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' \
	>/dev/null 2>&1; then
	say "== PyTorch GPT block [$(elapsed) s]"
	cat >"$OUT/torch_block.py" <<'EOF'
# One pre-LN GPT block (h 1600, 25 heads, seq 1024, tanh GELU, causal,
# dropout 0.1 on the residual branches as pd2bw-profile runs it; unfused
# attention with dropout on the probabilities, as pd2bw-profile's
# --attention unfused, and SDPA without attention dropout, as its fused
# kernel), bf16, forward and backward timed with CUDA events, median of 20.
import math, statistics, sys
import torch
import torch.nn.functional as F

h, a, s = 1600, 25, 1024
dev, dt = "cuda", torch.bfloat16


class Block(torch.nn.Module):
    def __init__(self, fused):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(h)
        self.qkv = torch.nn.Linear(h, 3 * h)
        self.proj = torch.nn.Linear(h, h)
        self.ln2 = torch.nn.LayerNorm(h)
        self.fc1 = torch.nn.Linear(h, 4 * h)
        self.fc2 = torch.nn.Linear(4 * h, h)
        self.fused = fused

    def forward(self, x):
        b = x.shape[0]
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = (t.view(b, s, a, h // a).transpose(1, 2) for t in (q, k, v))
        if self.fused:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)).float() / math.sqrt(h // a)
            mask = torch.ones(s, s, device=dev, dtype=torch.bool).tril()
            att = att.masked_fill(~mask, float("-inf")).softmax(-1).to(dt)
            o = F.dropout(att, 0.1) @ v
        x = x + F.dropout(self.proj(o.transpose(1, 2).reshape(b, s, h)), 0.1)
        y = self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))
        return x + F.dropout(y, 0.1)


for fused in (False, True):
    blk = Block(fused).to(dev, dt)
    for b in (1, 2, 4, 8):
        x = torch.randn(b, s, h, device=dev, dtype=dt, requires_grad=True)
        g = torch.randn(b, s, h, device=dev, dtype=dt)
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        fw, bw = [], []
        for i in range(25):
            ev[0].record()
            y = blk(x)
            ev[1].record()
            y.backward(g)
            ev[2].record()
            torch.cuda.synchronize()
            if i >= 5:
                fw.append(ev[0].elapsed_time(ev[1]))
                bw.append(ev[1].elapsed_time(ev[2]))
        print("torch %s block b=%d fwd %.4f ms bwd %.4f ms" % (
            "sdpa" if fused else "unfused", b, statistics.median(fw),
            statistics.median(bw)))
        sys.stdout.flush()
EOF
	limit 120 python3 "$OUT/torch_block.py" >"$OUT/torch_block.txt" 2>&1
	tee -a "$SUM" <"$OUT/torch_block.txt"
	# cuDNN's attention as PyTorch runs it, for bench/data/cudnn-sdpa-check.tsv
	say "== fused attention through PyTorch's SDPA [$(elapsed) s]"
	limit 180 python3 bench/sdpa-torch.py >"$OUT/sdpa.tsv" 2>&1
	tee -a "$SUM" <"$OUT/sdpa.tsv"
else
	say "no python3 with torch and CUDA: PyTorch reference skipped"
fi

say "done in $(elapsed) s; files in $OUT"
