#!/bin/sh
# te-gemm.sh - hold the cost model's linear-layer GEMMs, and the
# quantisation Transformer Engine does before them, against the timings
# Transformer Engine publishes of its own GEMM benchmark on a B300
# (bench/data/te-gemm-b300.tsv).
#
#   sh bench/te-gemm.sh [BUILD_DIR]   (default build; make first)
#
# For each row it asks pd2bw-profile --gemm -b analytic -g B300 what the
# model gives: a te.Linear forward that quantises its input and weight on
# the call (the benchmark's autocast mode) or the GEMM on quantised
# operands (its pre-quantized mode), per shape (fprop) or summed over a
# layer's four GEMMs of a pass (fprop, dgrad M x N x K, wgrad K x M x N).
# It prints model / measured, and each recipe's quantisation cost (the
# autocast sum less the pre-quantized one) both ways.  The catalog's
# efficiencies are what training runs hold (lib/formats/catalog.c), the
# benchmark's isolated kernels run faster at 16 bits; the quantised
# recipes' kernels and their quantisation are the check.  Nothing is
# fitted here.
set -eu
B=${1:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) ;; *) B=$TOP/$B ;; esac
[ -x "$B/pd2bw-profile" ] || { echo "te-gemm.sh: build first (make B=$B)" >&2; exit 1; }
DATA=$TOP/bench/data/te-gemm-b300.tsv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# model TIMES FILE: "mkn prec quantised-ms raw-ms" for every shape and
# recipe of the layer, fprop, dgrad and wgrad
shapes() {
	awk -F'\t' '$1 == "fprop" && $2 ~ /x/ { print $2 }' "$DATA" |
	while IFS=x read -r m k n; do
		echo "fprop ${m}x${k}x${n}"
		echo "dgrad ${m}x${n}x${k}"
		echo "wgrad ${k}x${m}x${n}"
	done
}
shapes >"$TMP/shapes"
for r in bf16 fp8-tensorwise fp8-delayed fp8-mxfp8 nvfp4; do
	case $r in
	bf16) a="-p bf16" ;;
	nvfp4) a="-p nvfp4" ;;
	*) a="-p fp8 --fp8-recipe ${r#fp8-}" ;;
	esac
	list=$(cut -d' ' -f2 "$TMP/shapes" | paste -sd, -)
	# shellcheck disable=SC2086
	"$B/pd2bw-profile" -b analytic -g B300 $a --gemm "$list" |
	awk -v r="$r" '{
		raw = ""; q = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "model:") raw = $(i + 1)
			if ($i == "call") q = $(i + 1)
		}
		if (q == "") q = raw
		print NR, r, q, raw
	}' >>"$TMP/model"
done
awk -v shapes="$TMP/shapes" -v model="$TMP/model" -F'\t' '
BEGIN {
	# the model answers in the order of the shapes: line i is shape i
	while ((getline l < shapes) > 0) {
		split(l, f, " "); ++ns; pass[ns] = f[1]; mkn[ns] = f[2]
	}
	while ((getline l < model) > 0) {
		split(l, f, " ")
		if (pass[f[1]] == "fprop") {
			q[mkn[f[1]], f[2]] = f[3]; raw[mkn[f[1]], f[2]] = f[4]
		}
		sq[pass[f[1]], f[2]] += f[3]; sraw[pass[f[1]], f[2]] += f[4]
	}
	printf "Transformer Engine GEMM benchmark on B300 (bench/data/te-gemm-b300.tsv) against pd2bw'"'"'s model:\n"
	printf "model ms / measured ms, autocast: a te.Linear forward quantising input and weight on the call\n\n"
	printf "%-26s %-9s", "", "mode"
	nr = split("bf16 fp8-tensorwise fp8-delayed fp8-mxfp8 nvfp4", rs, " ")
	for (i = 1; i <= nr; i++) printf " %18s", rs[i]
	printf "\n"
}
/^#/ || $1 == "what" { next }
{
	label = $2 ~ /x/ ? $1 " " $2 : $1 " sum"
	printf "%-26s %-9s", label, $3
	for (i = 1; i <= nr; i++) {
		meas = $(3 + i)
		if ($2 ~ /x/) mod = $3 == "autocast" ? q[$2, rs[i]] : raw[$2, rs[i]]
		else mod = $3 == "autocast" ? sq[$1, rs[i]] : sraw[$1, rs[i]]
		# DelayedScaling runs autocast in the pre-quantized mode too
		if (rs[i] == "fp8-delayed" && $3 == "prequant")
			mod = $2 ~ /x/ ? q[$2, rs[i]] : sq[$1, rs[i]]
		printf " %7.3f/%-6.3f %3.0f%%", mod, meas, 100 * (mod / meas - 1)
		if ($2 !~ /x/) { m[$1, $3, rs[i]] = mod; t[$1, $3, rs[i]] = meas }
	}
	printf "\n"
}
END {
	printf "\nquantisation, a layer (autocast less pre-quantized, fprop + dgrad + wgrad), model / measured ms:\n"
	for (i = 2; i <= nr; i++) {
		if (rs[i] == "fp8-delayed") continue
		mm = mt = 0
		split("fprop dgrad wgrad", ps, " ")
		for (j = 1; j <= 3; j++) {
			mm += m[ps[j], "autocast", rs[i]] - m[ps[j], "prequant", rs[i]]
			mt += t[ps[j], "autocast", rs[i]] - t[ps[j], "prequant", rs[i]]
		}
		printf "  %-16s %.3f / %.3f (%+.0f%%)\n", rs[i], mm, mt, 100 * (mm / mt - 1)
	}
}' "$DATA"
