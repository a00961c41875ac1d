#!/bin/sh
# validate.sh - hold the planner's predictions against published
# measurements (bench/data/published.tsv): evaluate mode on every
# configuration exactly as its authors ran it, then what the planner itself
# would choose for the same GPUs and batch.
#
#   sh bench/validate.sh [BUILD_DIR]        (default build; run make first)
#   SEARCH=0 sh bench/validate.sh           (skip the planner's own choices)
set -eu
B=${1:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PLAN=$TOP/$B/pd2bw-plan
[ -x "$PLAN" ] || { echo "validate.sh: build first (make B=$B)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

model() { # name layers hidden heads ffn -> file
	f=$TMP/$1.yaml
	cat >"$f" <<EOM
format: pd2bw-model/1
name: gpt-$1
family: gpt
layers: $2
hidden: $3
heads: $4
ffn_hidden: $5
seq_len: 2048
vocab: 51200
activation: gelu
norm: layernorm
positions: learned
causal: true
tied_embeddings: true
bias: true
dropout: true
flash_attention: false
precision: fp16
EOM
	echo "$f"
}

# field KEY FILE: value of "KEY:" in the prediction or of stage 0.
pred() { sed -n "s/^  $1: //p" "$2" | head -1; }
stage0() { grep -m1 '^- {first: 0' "$2" | sed "s/.*[{ ]$1: \([0-9.e+-]*\).*/\1/"; }
# avgstate FILE: weights + gradients + optimizer state per GPU, averaged
# over the stages (Figure 1 divides the model's total by the GPUs).
avgstate() {
	grep '^- {first: ' "$1" | sed 's/.*weight_bytes: \([0-9]*\), state_bytes: \([0-9]*\).*/\1 \2/' |
		awk -v g=$GIB '{ s += $1 + $2; n++ } END { print s / n / g }'
}

# evaluate NAME MODEL GPUS T P V BATCH MICRO RC SP -> plan file
evaluate() {
	out=$TMP/$1.plan
	nodes=$(( ($3 + 7) / 8 ))
	w=$(( $3 / ($4 * $5) ))
	"$PLAN" "$2" -c dgx-a100:$nodes --max-gpus "$3" -B "$7" -e \
		--width $w --depth "$5" --tp "$4" --microbatch "$8" \
		--microbatches "$8" -s flush -r "$9" --sequence-parallel "${10}" \
		--interleave "$6" --reserve 0 --partition uniform \
		--grad-bytes 4 -q -o "$out" 2>/dev/null || true
	echo "$out"
}

err() { awk -v p="$1" -v m="$2" 'BEGIN { printf "%+.1f", (p - m) / m * 100 }'; }
GIB=1073741824
# Megatron-LM (2021, 2022) keeps fp32 main gradients: 4 bytes per parameter
# (--grad-bytes 4 below, 18 bytes per parameter in all), splits the blocks
# evenly (--partition uniform) and all-reduces after the pipeline flush.

echo "Table A (Korthikanti et al. 2022, Table 5 and Figure 1): seconds per iteration"
printf '%-6s %6s %8s %8s %7s   %8s %8s %7s\n' model GPUs full pred err seqsel pred err
: >"$TMP/a.err"
: >"$TMP/mem.err"
grep '^A ' "$TOP/bench/data/published.tsv" | while read -r _ name l h a f g t p v bs mb full ss st an as; do
	m=$(model "$name" "$l" "$h" "$a" "$f")
	pf=$(evaluate "$name-full" "$m" "$g" "$t" "$p" "$v" "$bs" "$mb" full off)
	ps=$(evaluate "$name-ss" "$m" "$g" "$t" "$p" "$v" "$bs" "$mb" selective on)
	pn=$(evaluate "$name-none" "$m" "$g" "$t" "$p" "$v" "$bs" "$mb" none off)
	tf=$(awk -v x="$(pred iteration_ms "$pf")" 'BEGIN { print x / 1000 }')
	ts=$(awk -v x="$(pred iteration_ms "$ps")" 'BEGIN { print x / 1000 }')
	ef=$(err "$tf" "$full")
	es=$(err "$ts" "$ss")
	echo "$ef" >>"$TMP/a.err"
	echo "$es" >>"$TMP/a.err"
	printf '%-6s %6d %8.2f %8.2f %6s%%   %8.2f %8.2f %6s%%\n' "$name" "$g" \
		"$full" "$tf" "$ef" "$ss" "$ts" "$es"
	# Memory of the first stage, GiB.
	wst=$(avgstate "$pn")
	anone=$(awk -v a="$(stage0 stash_bytes "$pn")" -v g=$GIB 'BEGIN { print a / g }')
	ass=$(awk -v a="$(stage0 stash_bytes "$ps")" -v g=$GIB 'BEGIN { print a / g }')
	printf '%s %s %s %s %s %s %s\n' "$name" "$st" "$wst" "$an" "$anone" "$as" "$ass" >>"$TMP/mem"
done
awk '{ e = $1 < 0 ? -$1 : $1; s += e; if (e > m) m = e; n++ }
	END { printf "iteration time: mean |error| %.1f%%, max %.1f%% over %d cases\n", s / n, m, n }' "$TMP/a.err"

echo
echo "Table A memory per GPU, first stage, GiB (Figure 1)"
printf '%-6s %8s %8s %7s  %8s %8s %7s  %8s %8s %7s\n' model state pred err "act" pred err "act-ss" pred err
while read -r name st wst an anone as ass; do
	e1=$(err "$wst" "$st"); e2=$(err "$anone" "$an"); e3=$(err "$ass" "$as")
	echo "$e1" >>"$TMP/mem.err"; echo "$e2" >>"$TMP/mem.err"; echo "$e3" >>"$TMP/mem.err"
	printf '%-6s %8.2f %8.2f %6s%%  %8.2f %8.2f %6s%%  %8.2f %8.2f %6s%%\n' \
		"$name" "$st" "$wst" "$e1" "$an" "$anone" "$e2" "$as" "$ass" "$e3"
done <"$TMP/mem"
awk '{ e = $1 < 0 ? -$1 : $1; s += e; if (e > m) m = e; n++ }
	END { printf "memory: mean |error| %.1f%%, max %.1f%% over %d figures\n", s / n, m, n }' "$TMP/mem.err"

echo
echo "Table B (Narayanan et al. 2021, weak scaling): TFLOP/s per GPU, eq. 3"
echo "(assumed: microbatch 1, no interleaving, full recomputation, 1F1B)"
printf '%-7s %6s %4s %4s %8s %8s %7s\n' model GPUs t p measured pred err
: >"$TMP/b.err"
grep '^B ' "$TOP/bench/data/published.tsv" | while read -r _ name l h a f g t p v bs mb tf; do
	m=$(model "$name" "$l" "$h" "$a" "$f")
	pb=$(evaluate "$name" "$m" "$g" "$t" "$p" "$v" "$bs" "$mb" full off)
	it=$(pred iteration_ms "$pb")
	pt=$(awk -v B="$bs" -v l="$l" -v h="$h" -v g="$g" -v it="$it" 'BEGIN {
		s = 2048; V = 51200
		f = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
		print f / (it / 1000) / g / 1e12 }')
	e=$(err "$pt" "$tf")
	echo "$e" >>"$TMP/b.err"
	printf '%-7s %6d %4d %4d %8.0f %8.1f %6s%%\n' "$name" "$g" "$t" "$p" "$tf" "$pt" "$e"
done
awk '{ e = $1 < 0 ? -$1 : $1; s += e; if (e > m) m = e; n++ }
	END { printf "TFLOP/s per GPU: mean |error| %.1f%%, max %.1f%% over %d cases\n", s / n, m, n }' "$TMP/b.err"

[ "${SEARCH:-1}" = 1 ] || exit 0
echo
echo "What pd2bw-plan would choose for the same GPUs and batch (full search;"
echo "2bw trains with weights one update stale, so the best flush plan, with"
echo "Megatron's semantics, is shown too):"
cfg() {
	sed -n 's/^  \(schedule\|width\|depth\|tensor_parallel\|microbatch\|recompute\|sequence_parallel\|interleave\): /\1=/p' "$1" |
		sed 's/tensor_parallel/t/; s/sequence_parallel/sp/; s/microbatch/b/; s/recompute/rc/; s/interleave/v/; s/schedule=//; s/width/w/; s/depth/d/' |
		tr '\n' ' '
}
grep -v '^#' "$TOP/bench/data/published.tsv" | while read -r tab name l h a f g t p v bs mb rest; do
	m=$(model "$name" "$l" "$h" "$a" "$f")
	nodes=$(( (g + 7) / 8 ))
	ref=$(evaluate "$name-ref" "$m" "$g" "$t" "$p" "$v" "$bs" "$mb" full off)
	rt=$(pred iteration_ms "$ref")
	for sched in 2bw,flush,gpipe,none flush; do
		"$PLAN" "$m" -c dgx-a100:$nodes --max-gpus "$g" -B "$bs" \
			-s $sched -r none,selective,full --interleave 1,2,3 \
			--grad-bytes 4 -q -o "$TMP/best" 2>/dev/null || {
			echo "$tab $name: nothing fits"; continue; }
		bt=$(pred iteration_ms "$TMP/best")
		awk -v n="$tab $name" -v r="$rt" -v b="$bt" -v c="$(cfg "$TMP/best")" \
			-v w="$(pred binding "$TMP/best")" -v s=$sched 'BEGIN {
			if (s == "flush") n = ""
			printf "%-9s authors %6.2f s, %s %6.2f s (%.2fx): %s[%s]\n",
				n, r / 1000, s == "flush" ? "flush" : "best ", b / 1000, r / b, c, w }'
	done
done
