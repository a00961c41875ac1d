#!/bin/sh
# fit.sh - refit the catalog's GEMM efficiencies on the declared fit rows.
#
#   sh bench/fit.sh [-n ITER] [-t TOL] [-o FILE] [BUILD_DIR]   (default build; make first)
#
#   -n ITER   at most ITER secant steps (default 8)
#   -t TOL    a group whose fit rows are already within TOL % in the
#             signed mean keeps its figure (default 0.3); the others are
#             fitted to within 0.05 %
#   -o FILE   also write the refitted catalog as a pd2bw-gpus/1 file, for
#             bench/validate.sh --gpus FILE (the held-out rows' errors)
#
# bench/data/README.md's rule: at most one set of efficiencies per GPU type
# and precision, fitted only on the rows marked fit = 1.  This script is
# that fit, reproducible: for each GPU die and precision class with fit rows
# (dense Megatron, sharded data-parallel and torchtitan rows; the CP/EP rows are held
# against the result, never fitted), it moves the efficiency until the
# signed mean error of the group's fit rows is zero, all groups at once
# (secant steps; a group's rows also run the other classes' layers, so the
# groups are iterated together), and prints the values to three decimals,
# as lib/formats/catalog.c holds them, with each group's error before and
# after.  It changes nothing: copy the figures into the catalog.
#
# Groups and the figures tied to them (one die, one set):
#   A100     gemm_eff   A100-80GB, 16-bit rows (the 40 GB part keeps the
#                       catalog's figure: one fit row)
#   H100     gemm_eff   H100-SXM and H200, 16-bit rows; gemm_eff8: FP8 rows
#   H100-96GB-500W      the same die at 500 W, its own type: the same two
#                       figures, on torchtitan's rows (section T)
#   B200     gemm_eff8  per-tensor FP8 rows; gemm_eff_mxfp8: MXFP8 rows;
#                       gemm_eff_nvfp4: NVFP4 rows
#   GB200    the same
#   GB300    the same, for GB300 and B300 (one die)
# A Blackwell part's 16-bit gemm_eff is not fitted (no dense 16-bit
# Blackwell row is published): it is its FP8 figure times Hopper's
# 16-bit / FP8 ratio, as the catalog derives it (GB_EFF16).
set -eu
ITER=8 OUT= TOL=0.3
B=build
while [ $# -gt 0 ]; do
	case $1 in
	-n) ITER=$2; shift ;;
	-o) OUT=$2; shift ;;
	-t) TOL=$2; shift ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fit.sh: unknown option $1" >&2; exit 2 ;;
	*) B=$1 ;;
	esac
	shift
done
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) ;; *) B=$TOP/$B ;; esac
[ -x "$B/pd2bw-plan" ] || { echo "fit.sh: build first (make B=$B)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TOP"
"$B/pd2bw-plan" --list-gpus >"$TMP/catalog.yaml"
# The die (one set of efficiencies) of a GPU type, for the awk programs.
DIE='
function die(g) {
	if (g == "A100-80GB") return "A100"
	if (g == "H100-SXM" || g == "H200") return "H100"
	if (g == "B300") return "GB300"
	return g
}'

# The parameters: die, field, value (from the catalog as built).
awk '
/^- name: / { g = $3 }
/^  gemm_eff:/ { e16[g] = $2 }
/^  gemm_eff8:/ { e8[g] = $2 }
/^  gemm_eff_mxfp8:/ { mx[g] = $2 }
/^  gemm_eff_nvfp4:/ { f4[g] = $2 }
END {
	print "A100", "gemm_eff", e16["A100-80GB"]
	print "H100", "gemm_eff", e16["H100-SXM"]
	print "H100", "gemm_eff8", e8["H100-SXM"]
	print "H100-96GB-500W", "gemm_eff", e16["H100-96GB-500W"]
	print "H100-96GB-500W", "gemm_eff8", e8["H100-96GB-500W"]
	n = split("B200 GB200 GB300", d, " ")
	for (i = 1; i <= n; i++) {
		print d[i], "gemm_eff8", e8[d[i]]
		print d[i], "gemm_eff_mxfp8", mx[d[i]] != "" ? mx[d[i]] : e8[d[i]]
		print d[i], "gemm_eff_nvfp4", f4[d[i]]
	}
}' "$TMP/catalog.yaml" >"$TMP/par"

# write_gpus PARAMS OUT: the catalog with the parameters (and what is
# tied to them) put in.  A Blackwell part with no fit rows for one FP8
# recipe takes its other recipe's figure times GB200's ratio of the two
# (GB200 has fit rows for both), to three decimals; one with no NVFP4
# fit rows its per-tensor FP8 figure times GB200's NVFP4 / FP8 ratio.
write_gpus() {
	: >"$TMP/derived"
	awk -v OFS=' ' -v dfile="$TMP/derived" "$DIE"'
	function r3(x) { return int(x * 1000 + 0.5) / 1000 }
	FILENAME == ARGV[1] { norows[$1, $2] = 1; next }
	FILENAME == ARGV[2] { v[$1, $2] = $3; next }
	FNR == 1 {
		for (k in norows) {
			split(k, q, SUBSEP)
			if (q[1] !~ /^(B200|GB300)$/) continue
			if (q[2] == "gemm_eff8")
				v[k] = r3(v[q[1], "gemm_eff_mxfp8"] * v["GB200", "gemm_eff8"] / v["GB200", "gemm_eff_mxfp8"])
			else if (q[2] == "gemm_eff_mxfp8")
				v[k] = r3(v[q[1], "gemm_eff8"] * v["GB200", "gemm_eff_mxfp8"] / v["GB200", "gemm_eff8"])
			else if (q[2] == "gemm_eff_nvfp4")
				v[k] = r3(v[q[1], "gemm_eff8"] * v["GB200", "gemm_eff_nvfp4"] / v["GB200", "gemm_eff8"])
			print q[1], q[2], v[k] >dfile
		}
	}
	/^- name: / { d = die($3); bw = d ~ /^(B200|GB200|GB300)$/ }
	/^  gemm_eff:/ {
		if ((d, "gemm_eff") in v) $2 = v[d, "gemm_eff"]
		else if (bw) $2 = r3(v[d, "gemm_eff8"] * v["H100", "gemm_eff"] / v["H100", "gemm_eff8"])
		$0 = "  " $1 " " $2
		g16 = $2
	}
	# the attention kernels of a part whose 16-bit figure is fitted:
	# their isolated fraction (cuDNN'"'"'s, bench/attention.sh) times that
	# figure over isolated GEMMs'"'"' 0.70 (catalog.c TRAIN_ATTN)
	/^  attn_eff:/ && (bw || d ~ /^H100/) { $0 = "  attn_eff: " r3((d == "GB300" ? 0.843 : bw ? 0.710 : 0.750) * g16 / 0.70) }
	/^  attn_eff_fa2:/ && d ~ /^H100/ { $0 = "  attn_eff_fa2: " r3(0.35 * g16 / 0.70) }
	/^  gemm_eff8:/ && (d, "gemm_eff8") in v { $0 = "  gemm_eff8: " v[d, "gemm_eff8"] }
	/^  gemm_eff_mxfp8:/ && (d, "gemm_eff_mxfp8") in v { $0 = "  gemm_eff_mxfp8: " v[d, "gemm_eff_mxfp8"] }
	/^  gemm_eff_nvfp4:/ && (d, "gemm_eff_nvfp4") in v { $0 = "  gemm_eff_nvfp4: " v[d, "gemm_eff_nvfp4"] }
	{ print }' "$TMP/norows" "$1" "$TMP/catalog.yaml" >"$2"
}

# errors PARAMS: one line per group: die, field, n, signed mean error %.
# The fit rows of validate.sh's TSV that are not CP/EP rows, by die
# and the efficiency their precision reads; nor packed SFT rows, whose
# documents' length validate.sh assumes from their dataset; nor torchao's
# rowwise FP8 rows, whose GEMMs run at the part's FP8 figure times
# analytic.c's ROWWISE_GEMM, the figure their fit row sets.
errors() {
	write_gpus "$1" "$TMP/gpus.yaml"
	sh bench/validate.sh -q --gpus "$TMP/gpus.yaml" --tsv "$TMP/v.tsv" "$B" >/dev/null
	awk -F'\t' "$DIE"'
	$3 == 1 && $4 == "run" && $7 != "-" && $13 != "par" && $13 != "ttcp" &&
	$13 != "sft" && $13 != "hybrid" && $15 != "fp8-row" {
		f = $15 ~ /mx/ ? "gemm_eff_mxfp8" : $15 ~ /fp8/ ? "gemm_eff8" : $15 ~ /fp4/ ? "gemm_eff_nvfp4" : "gemm_eff"
		g = die($14)
		s[g, f] += $7; n[g, f]++
	}
	END { for (k in n) { split(k, p, SUBSEP); printf "%s %s %d %.4f\n", p[1], p[2], n[k], s[k] / n[k] } }' \
		"$TMP/v.tsv" |
		# only the groups a parameter belongs to (A100-40GB: none)
		awk 'FNR == NR { want[$1, $2] = 1; next } ($1, $2) in want' "$TMP/par" - | sort
}

cp "$TMP/par" "$TMP/p0"
: >"$TMP/norows"
errors "$TMP/p0" >"$TMP/e0"
# the parameters no fit row measures: derived (write_gpus), then the
# first errors again with them
awk 'FILENAME == ARGV[1] { has[$1, $2] = 1; next } !(($1, $2) in has) { print $1, $2 }' \
	"$TMP/e0" "$TMP/par" >"$TMP/norows"
if [ -s "$TMP/norows" ]; then errors "$TMP/p0" >"$TMP/e0"; fi
cp "$TMP/e0" "$TMP/first"
# a group already within TOL of zero keeps its figure (no churn for
# noise); the others are fitted to within 0.05%
awk -v tol="$TOL" '$4 <= tol && $4 >= -tol { print $1, $2 }' "$TMP/e0" >"$TMP/frozen"
i=0
while [ "$i" -lt "$ITER" ]; do
	# converged: every group within 0.05% in the mean
	awk 'FILENAME == ARGV[1] { fz[$1, $2] = 1; next }
	!(($1, $2) in fz) && ($4 > 0.05 || $4 < -0.05) { bad = 1 }
	END { exit !bad }' "$TMP/frozen" "$TMP/e$i" || break
	j=$((i + 1))
	# a secant step from the last two points; the first step scales
	# the efficiency with the error (a GEMM-bound row's time goes as
	# 1/eff)
	awk -v first=$((i == 0)) '
	FNR == 1 { f++ }
	f == 1 { p0[$1, $2] = $3; next }
	f == 2 { e0[$1, $2] = $4; next }
	f == 3 { p1[$1, $2] = $3; next }
	f == 4 { e1[$1, $2] = $4; next }
	f == 5 { fz[$1, $2] = 1; next }
	END {
		for (k in p1) {
			split(k, q, SUBSEP)
			v = p1[k]
			if ((k in e1) && !(k in fz)) {
				if (!first && (k in e0) && e1[k] != e0[k] && p1[k] != p0[k])
					v = p1[k] - e1[k] * (p1[k] - p0[k]) / (e1[k] - e0[k])
				else
					v = p1[k] * (1 + e1[k] / 100)
			}
			if (v > 1) v = 1
			if (v < 0.05) v = 0.05
			printf "%s %s %.6f\n", q[1], q[2], v
		}
	}' "$TMP/p$((i > 0 ? i - 1 : 0))" "$TMP/e$((i > 0 ? i - 1 : 0))" "$TMP/p$i" "$TMP/e$i" \
		"$TMP/frozen" | sort >"$TMP/p$j"
	errors "$TMP/p$j" >"$TMP/e$j"
	[ -z "${FIT_TRACE:-}" ] || paste -d' ' "$TMP/p$j" "$TMP/e$j" | sed "s/^/step $j: /" >&2
	i=$j
done
# to three decimals, as the catalog holds them, and the errors there
awk '{ printf "%s %s %.3f\n", $1, $2, $3 }' "$TMP/p$i" >"$TMP/final"
errors "$TMP/final" >"$TMP/efinal"
[ -z "$OUT" ] || cp "$TMP/gpus.yaml" "$OUT"
echo "group  field           fit rows  before (value, signed mean)  after"
awk '
FNR == 1 { f++ }
f == 1 { b[$1, $2] = $3; next }
f == 2 { eb[$1, $2] = $4; n[$1, $2] = $3; next }
f == 3 { a[$1, $2] = $3; k[++nk] = $1 SUBSEP $2; next }
f == 4 { ea[$1, $2] = $4; next }
f == 5 { a[$1, $2] = $3; dv[$1, $2] = 1; next }
END {
	for (i = 1; i <= nk; i++) {
		split(k[i], q, SUBSEP)
		if (k[i] in n)
			printf "%-6s %-15s %8d  %.3f %+6.2f%%                  %.3f %+6.2f%%\n", q[1], q[2],
			       n[k[i]], b[k[i]], eb[k[i]], a[k[i]], ea[k[i]]
		else
			printf "%-6s %-15s %8d  %.3f                          %.3f          %s\n", q[1], q[2],
			       0, b[k[i]], a[k[i]], (k[i] in dv) ? "(no fit rows: derived)" : "(no fit rows)"
	}
}' "$TMP/par" "$TMP/first" "$TMP/final" "$TMP/efinal" "$TMP/derived"
echo "fit: $i iterations; copy the after column into lib/formats/catalog.c"
