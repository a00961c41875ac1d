#!/bin/sh
# attention.sh - derive the fused attention kernel's figures from the
# timings NVIDIA publishes of cuDNN's (bench/data/cudnn-sdpa.tsv).
#
#   sh bench/attention.sh [BUILD_DIR]   (default build; make first)
#
# The analytic model prices a fused attention pass of P scores (causal:
# b x heads x s^2 / 2) as max(4 d P, e P) FLOPs forward and max(10 d P,
# e P) backward (d the head size, e the catalog's flops_per_exp), over
# the tile share u / (u + 1/2 + C) of a query block that walks u = s / 256
# key tiles, at the fraction a of the GPU's 16-bit peak (lib/cost/
# analytic.c ring_ms() and attn_tile_share()).  This script fits, on the
# benchmark's forward + backward times, one block cost C for all GPUs and
# one a per GPU, by least squares on the logarithm of the time (C in steps
# of 0.1, a to three decimals), and prints them with each row's
# measured / fitted time.  They are the catalog's isolated attention
# fractions (lib/formats/catalog.c *_ATTN_ISO) and the native kernel's
# block cost (the catalog's attn_block, CUDNN_ATTN_BLOCK); the catalog holds
# training runs' attention at a times the part's fitted 16-bit GEMM
# figure over isolated GEMMs' 0.70 (TRAIN_ATTN), as bench/fit.sh does.
set -eu
B=build
case ${1:-} in -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; ?*) B=$1 ;; esac
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) ;; *) B=$TOP/$B ;; esac
[ -x "$B/pd2bw-plan" ] || { echo "attention.sh: build first (make B=$B)" >&2; exit 1; }
"$B/pd2bw-plan" --list-gpus | awk '
/^- name: / { g = $3 }
/^  tflops16:/ { peak[g] = $2 }
/^  flops_per_exp:/ { fpe[g] = $2 }
/^  kernel_us:/ { kus[g] = $2 }
END { for (g in peak) print "GPU", g, peak[g], fpe[g] + 0, kus[g] + 0 }' |
cat - "$TOP/bench/data/cudnn-sdpa.tsv" | awk -F'[ \t]' '
$1 == "GPU" { peak[$2] = $3; fpe[$2] = $4; kus[$2] = $5; next }
/^#/ || $1 == "gpu" { next }
{
	g = $1
	if (!(g in peak)) { print "attention.sh: GPU " g " not in the catalog" > "/dev/stderr"; exit 1 }
	n++; gpu[n] = g; seq[n] = $4; meas[n] = $8 + $9
	P = $3 * $5 * $4 * $4 / 2; d = $7
	f = (4 * d * P > fpe[g] * P ? 4 * d * P : fpe[g] * P) + \
	    (10 * d * P > fpe[g] * P ? 10 * d * P : fpe[g] * P)
	# milliseconds at a = 1 and a share of 1
	base[n] = f / (peak[g] * 1e12) * 1e3; fix[n] = 2 * kus[g] * 1e-3
	if (!(g in seen)) { seen[g] = 1; ng++; names[ng] = g }
}
function share(s, C,   u) { u = s / 256; return u / (u + 0.5 + C) }
# the least-squares a of GPU g at block cost C (log space), and its error
function fit(g, C,   i, k, s) {
	s = 0; k = 0
	for (i = 1; i <= n; i++)
		if (gpu[i] == g) { s += log(base[i] / share(seq[i], C) / (meas[i] - fix[i])); k++ }
	return exp(s / k)
}
function err(C,   i, e, a, r) {
	e = 0
	for (i = 1; i <= n; i++) {
		a = fit(gpu[i], C)
		r = log(base[i] / share(seq[i], C) / a + fix[i]) - log(meas[i])
		e += r * r
	}
	return e
}
END {
	best = -1
	for (c = 0; c <= 80; c++)
		if (best < 0 || err(c / 10) < bestE) { best = c / 10; bestE = err(best) }
	printf "block cost C = %.1f tiles (rms error %.1f%%)\n", best, 100 * sqrt(bestE / n)
	for (j = 1; j <= ng; j++) {
		g = names[j]; a = int(fit(g, best) * 1000 + 0.5) / 1000
		printf "%-6s a = %.3f  measured / fitted:", g, a
		for (i = 1; i <= n; i++)
			if (gpu[i] == g)
				printf " %dk %.3f", seq[i] / 1024, meas[i] / (base[i] / share(seq[i], best) / a + fix[i])
		printf "\n"
	}
}'
