#!/bin/sh
# attention.sh - derive the fused attention kernel's figures from the
# timings NVIDIA publishes of cuDNN's (bench/data/cudnn-sdpa.tsv).
#
#   sh bench/attention.sh [BUILD_DIR]   (default build; make first)
#
# The analytic model prices a pass of cuDNN's fused attention over P
# scores (b x heads x the pairs its mask keeps: s^2 / 2 causal, s^2
# without a mask, s w - w^2 / 2 under a w-key window) at the larger of
# its matmuls' FLOPs (4 d P forward, 10 d P backward, d the head size)
# and a floor of e P FLOPs (the softmax work a score costs besides its
# matmuls: exponential, scaling, conversions), over the tile share
# u / (u + cut + C) of a query block that walks u = pairs per query / 128
# key tiles (cut: half a tile on a causal diagonal, one on a window's two
# edges), at the fraction a of the GPU's 16-bit peak (lib/cost/
# analytic.c ring_ms() and attn_tile_share()).  This script fits, on the
# benchmark's forward and backward times apart, one block cost C for all
# GPUs, and per GPU and pass a and e, by least squares on the logarithm
# of the time (C in steps of 0.1, e in steps of 10 FLOPs, a to three
# decimals), and prints them with the rms error.  They are the catalog's
# native-kernel figures: the isolated forward fraction a (lib/formats/
# catalog.c *_ATTN_ISO), the backward's over the forward's (attn_bwd),
# the floors (score_flops_fwd, score_flops_bwd) and the block cost
# (attn_block, CUDNN_ATTN_BLOCK); the catalog holds training runs'
# attention at a times the part's fitted 16-bit GEMM figure over
# isolated GEMMs' 0.70 (TRAIN_ATTN), as bench/fit.sh does.  It then
# predicts, at those figures, the timings it did not fit (bench/data/
# cudnn-sdpa-check.tsv: multi-head latent attention's heads of 192 and
# 128, heads of 256, unmasked video models) and prints their rms error
# per GPU and model: a score's matmuls there take 2 (dqk + dv) FLOPs
# forward and 6 dqk + 4 dv backward.  A GPU the fit does not cover (the
# H100, whose timings pd2bw measured itself) is predicted at the figures
# the built catalog holds for it.
# Last, FlashAttention-2 as PyTorch's SDPA runs it on Hopper (bench/data/
# fa2-sdpa.tsv): its forward and backward fractions a at its own block
# cost, 1.4 tiles (analytic.c ATTN_BLOCK_COST), fitted the same way: the
# backward's over the forward's is the Hopper parts' attn_bwd_fa2; the
# forward's stands beside the catalog's 0.35 (catalog.c H100_FA2_ISO,
# the FlashAttention-3 paper's figure).
# It exits 1, naming the figure, where the built catalog holds another
# figure than the fit gives (the test tests/cli/bench/attention holds the
# catalog at the fit).
set -eu
B=build
case ${1:-} in -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; ?*) B=$1 ;; esac
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) ;; *) B=$TOP/$B ;; esac
[ -x "$B/pd2bw-plan" ] || { echo "attention.sh: build first (make B=$B)" >&2; exit 1; }
TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
"$B/pd2bw-plan" --list-gpus >"$TMP"
awk '
/^- name: / { g = $3 }
/^  tflops16:/ { peak[g] = $2 }
/^  kernel_us:/ { kus[g] = $2 }
/^  [a-z_0-9]+: [0-9.]+$/ { sub(":", "", $1); v[g, $1] = $2 }
END {
	for (g in peak)
		print "GPU", g, peak[g], kus[g] + 0, v[g, "gemm_eff"] + 0, \
		      v[g, "attn_eff"] + 0, v[g, "attn_block"] + 0, \
		      v[g, "attn_bwd"] + 0, v[g, "score_flops_fwd"] + 0, \
		      v[g, "score_flops_bwd"] + 0
}' "$TMP" |
cat - "$TOP/bench/data/cudnn-sdpa.tsv" "$TOP/bench/data/cudnn-sdpa-check.tsv" | awk -F'[ \t]' '
$1 == "GPU" {
	peak[$2] = $3; kus[$2] = $4; ge[$2] = $5; cat[$2, "attn_eff"] = $6
	cat[$2, "attn_block"] = $7; cat[$2, "attn_bwd"] = $8
	cat[$2, "score_flops_fwd"] = $9; cat[$2, "score_flops_bwd"] = $10
	next
}
/^# cudnn-sdpa-check/ { chk = 1 }
/^#/ || $1 == "gpu" { next }
{
	g = $1
	if (!(g in peak)) { print "attention.sh: GPU " g " not in the catalog" > "/dev/stderr"; exit 1 }
	s = $6; w = $10; dq = $9; dv = $9
	if (index($9, "/")) { split($9, hd, "/"); dq = hd[1]; dv = hd[2] }
	if (w > 0 && w < s) { pairs = s * w - w * w / 2; cut = 1 }
	else if ($4 == "causal") { pairs = s * s / 2; cut = 0.5 }
	else { pairs = s * s; cut = 0 }
	if (!chk && !(g in seen)) { seen[g] = 1; ng++; names[ng] = g }
	for (p = 0; p < 2; p++) {
		t = p ? $12 : $11
		if (t == "-") continue
		# the fitted rows 1..n, the checked ones N + 1..
		i = chk ? ++nc + 100000 : ++n
		gpu[i] = g; pas[i] = p; meas[i] = t; mdl[i] = $3
		# ms per FLOP of the pass at a = 1 and a share of 1
		unit[i] = $5 * $7 * pairs / (peak[g] * 1e12) * 1e3
		mm[i] = p ? 6 * dq + 4 * dv : 2 * (dq + dv)
		u[i] = pairs / s / 128; cuts[i] = cut
		fix[i] = kus[g] * 1e-3
	}
}
function base(i, e, C) { return unit[i] * (mm[i] > e ? mm[i] : e) * (u[i] + cuts[i] + C) / u[i] }
# the least-squares a of GPU g, pass p at floor e and block cost C (log
# space), and the squared error it leaves (in ERR)
function fit(g, p, e, C,   i, k, s, r) {
	s = 0; k = 0
	for (i = 1; i <= n; i++)
		if (gpu[i] == g && pas[i] == p) { s += log(base(i, e, C) / (meas[i] - fix[i])); k++ }
	A = exp(s / k); ERR = 0
	for (i = 1; i <= n; i++)
		if (gpu[i] == g && pas[i] == p) { r = log(base(i, e, C) / A + fix[i]) - log(meas[i]); ERR += r * r }
	return A
}
# the best floor of GPU g, pass p at C: E, its a (A) and error (ERR)
function best(g, p, C,   e, be, ba, bx) {
	bx = -1
	for (e = 0; e <= 2000; e += 10) {
		fit(g, p, e, C)
		if (bx < 0 || ERR < bx - 1e-12) { bx = ERR; be = e; ba = A }
	}
	E = be; A = ba; ERR = bx
}
END {
	bc = -1
	for (c = 10; c <= 80; c++) {
		tot = 0
		for (j = 1; j <= ng; j++)
			for (p = 0; p < 2; p++) { best(names[j], p, c / 10); tot += ERR }
		if (bc < 0 || tot < btot - 1e-12) { bc = c / 10; btot = tot }
	}
	printf "block cost C = %.1f tiles (rms error %.1f%% over %d times)\n", bc, 100 * sqrt(btot / n), n
	for (j = 1; j <= ng; j++) {
		g = names[j]; k = 0; x = 0
		best(g, 0, bc); af = int(A * 1000 + 0.5) / 1000; ef = E; x += ERR
		best(g, 1, bc); ab = A; eb = E; x += ERR
		for (i = 1; i <= n; i++) if (gpu[i] == g) k++
		printf "%-6s forward a = %.3f, floor %d; backward a = %.3f (attn_bwd %.3f), floor %d; rms %.1f%%\n", g, af, ef, ab, int(ab / af * 1000 + 0.5) / 1000, eb, 100 * sqrt(x / k)
		fa[g, 0] = af; fe[g, 0] = ef; fa[g, 1] = ab; fe[g, 1] = eb
		# what the built catalog holds for this die: the figures, and
		# the forward fraction as training runs hold it (TRAIN_ATTN)
		want["attn_eff"] = int(af * ge[g] / 0.70 * 1000 + 0.5) / 1000
		want["attn_block"] = bc; want["attn_bwd"] = int(ab / af * 1000 + 0.5) / 1000
		want["score_flops_fwd"] = ef; want["score_flops_bwd"] = eb
		for (f in want)
			if (cat[g, f] + 0 != want[f] + 0) {
				printf "attention.sh: the catalog has %s %s %s where the fit gives %s\n", g, f, cat[g, f], want[f] > "/dev/stderr"
				bad = 1
			}
	}
	if (bad) exit 1
	printf "the built catalog holds these figures for %s\n", ng == 3 ? "H200, GB200 and GB300" : "every GPU fitted"
	if (!nc) exit
	print "not fitted, predicted at those figures (rms error, forward and backward; worst / best ratio measured / predicted):"
	# a GPU the fit does not cover (the H100, measured by pd2bw itself)
	# is predicted at the figures the catalog holds for it
	for (i = 100001; i <= 100000 + nc; i++) {
		g = gpu[i]
		if ((g SUBSEP 0) in fa) continue
		fa[g, 0] = cat[g, "attn_eff"] * 0.70 / ge[g]
		fa[g, 1] = fa[g, 0] * cat[g, "attn_bwd"]
		fe[g, 0] = cat[g, "score_flops_fwd"]; fe[g, 1] = cat[g, "score_flops_bwd"]
	}
	for (i = 100001; i <= 100000 + nc; i++) {
		k = gpu[i] SUBSEP mdl[i]
		if (!(k in cn)) order[++nk] = k
		r = log(meas[i] / (base(i, fe[gpu[i], pas[i]], bc) / fa[gpu[i], pas[i]] + fix[i]))
		cn[k]++; ce[k] += r * r; all += r * r
		if (!(k in hi) || r > hi[k]) hi[k] = r
		if (!(k in lo) || r < lo[k]) lo[k] = r
	}
	for (j = 1; j <= nk; j++) {
		split(order[j], q, SUBSEP)
		printf "%-8s %-10s %2d times  rms %4.1f%%  %.2f / %.2f\n", q[1], q[2], cn[order[j]], 100 * sqrt(ce[order[j]] / cn[order[j]]), exp(hi[order[j]]), exp(lo[order[j]])
	}
	printf "all      %d times  rms %.1f%%\n", nc, 100 * sqrt(all / nc)
}'
# FlashAttention-2: a score's share of a 128-query block that walks u key
# tiles, at the block cost 1.4; the rates as the file gives them; the
# catalog's Hopper figure to compare
h200() { awk -v k="$1" '/^- name: / { g = $3 } g == "H200" && $1 == k ":" { print $2 }' "$TMP"; }
awk -F'\t' -v have="$(h200 attn_bwd_fa2)" -v peak="$(h200 tflops16)" '
/^#/ || $1 == "batch" { next }
{
	u = ($5 == "yes" ? $3 / 2 : $3) / 128; cut = $5 == "yes" ? 0.5 : 0
	sh = u / (u + cut + 1.4)
	for (p = 0; p < 2; p++) { n[p]++; r[p, n[p]] = log(($(6 + p)) / peak / sh) }
}
END {
	for (p = 0; p < 2; p++) {
		m = 0; for (i = 1; i <= n[p]; i++) m += r[p, i]; m /= n[p]
		e = 0; for (i = 1; i <= n[p]; i++) e += (r[p, i] - m) ^ 2
		a[p] = int(exp(m) * 1000 + 0.5) / 1000; rms[p] = 100 * sqrt(e / n[p])
	}
	rt = int(a[1] / a[0] * 1000 + 0.5) / 1000
	printf "FlashAttention-2 on Hopper (PyTorch SDPA, block cost 1.4): forward a = %.3f (rms %.1f%%), backward a = %.3f (attn_bwd_fa2 %.3f, rms %.1f%%)\n", a[0], rms[0], a[1], rt, rms[1]
	if (have + 0 != rt) {
		printf "attention.sh: the catalog has H200 attn_bwd_fa2 %s where the fit gives %s\n", have, rt > "/dev/stderr"
		exit 1
	}
}' "$TOP/bench/data/fa2-sdpa.tsv"
