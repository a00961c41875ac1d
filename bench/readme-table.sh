#!/bin/sh
# The README's validation table, from bench/validate.sh: the number of
# rows (fitted ones in parentheses), the mean absolute error and the
# largest, for each set the README's table names, and the row behind the
# largest.
#
# usage: sh bench/readme-table.sh [--check README] [BUILD_DIR]
#   --check FILE  compare with the table in FILE instead of printing it:
#                 every set's row must be there, its counts and the leading
#                 percentages of its error cells as computed here; prints
#                 each difference and exits 1 on any.
# BUILD_DIR as bench/validate.sh takes it (default: build).
#
# Each set is a row of the README's table, found by the text of its first
# cell.  "held": the counts are held-out rows (fitted), the errors over
# the held-out rows; "all": the counts are all rows (fitted), the errors
# over all of them, as the README says where it includes fit rows.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
CHECK=
B=build
while [ $# -gt 0 ]; do
	case $1 in
	--check) CHECK=$2; shift 2 ;;
	-*) echo "readme-table.sh: unknown option $1" >&2; exit 2 ;;
	*) B=$1; shift ;;
	esac
done
if [ -n "$CHECK" ] && [ ! -r "$CHECK" ]; then
	echo "readme-table.sh: cannot read $CHECK" >&2
	exit 2
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
sh "$TOP/bench/validate.sh" -q --tsv "$TMP/rows.tsv" "$B" >"$TMP/summary" ||
	true
[ -s "$TMP/rows.tsv" ] || { echo "readme-table.sh: bench/validate.sh wrote no rows" >&2; exit 1; }

awk -F'\t' -v check="$CHECK" -v summary="$TMP/summary" '
# bench/data: each row'"'"'s context- and expert-parallel degrees
FNR == 1 { data = FILENAME != rowsf; hdr = 1; delete col }
data && /^#/ { next }
data && hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 0; next }
data {
	if ("id" in col && "cp" in col && "ep" in col) {
		cp[$col["id"]] = $col["cp"]; ep[$col["id"]] = $col["ep"]
	}
	next
}
# bench/validate.sh --tsv: the rows predicted
$4 == "run" && $7 != "-" {
	n++; id[n] = $1; sec[n] = $2; fit[n] = $3 == "1"; err[n] = $7
	set[n] = $13; gpu[n] = $14; prec[n] = $15
}
function par(d) { return d != "" && d != "-" && d != "1" }
function bf(i) { return prec[i] == "bf16" || prec[i] == "fp16" }
function in_set(g, i,   s) {
	s = sec[i]
	if (g == "A") return s == "A"
	if (g == "B") return s == "B"
	if (g == "Cfp8") return s == "C" && set[i] == "dense" && prec[i] ~ /^fp8/
	if (g == "D") return s == "D" && set[i] == "dense"
	if (g == "F") return s == "F" && set[i] == "dense"
	if (g == "Cfp4") return s == "C" && set[i] == "dense" && prec[i] == "nvfp4"
	if (g == "dense16") return set[i] == "dense" && bf(i)
	if (g == "dense") return set[i] == "dense"
	if (g == "densenofp4") return set[i] == "dense" && prec[i] != "nvfp4"
	if (g == "L") return s == "L"
	if (g ~ /^cp/) return set[i] == "par" && par(cp[id[i]]) &&
		!par(ep[id[i]]) && (g == "cp" ? s ~ /^[CDF]$/ : s == substr(g, 3))
	if (g ~ /^moe/) return set[i] == "par" && s ~ /^[CF]$/ &&
		par(ep[id[i]]) && (g == "moe" || (g == "moe16") == bf(i))
	if (g == "par") return set[i] == "par"
	if (g == "HIa100") return s ~ /^[HI]$/ && gpu[i] ~ /^A100/
	if (g == "HIh100") return s ~ /^[HI]$/ && gpu[i] ~ /^H100/
	if (g == "mfsdp") return s ~ /^[CF]$/ && set[i] == "fsdp"
	if (g == "fsdp") return set[i] == "fsdp"
	if (g == "Tnocp") return s == "T" && !par(cp[id[i]]) && gpu[i] !~ /^H200/
	if (g == "Tcp") return s == "T" && par(cp[id[i]])
	if (g == "Th200") return s == "T" && gpu[i] ~ /^H200/
	if (g == "T") return s == "T"
	if (g == "hyH100") return set[i] == "hybrid" && gpu[i] ~ /^H100/
	if (g == "hyBw") return set[i] == "hybrid" && gpu[i] ~ /^G?B[23]00$/
	if (g == "hybrid") return set[i] == "hybrid"
	if (g == "card") return set[i] == "card"
	return 0
}
# over set g, held-out rows ("held") or all ("all"): cnt, nfit, mean,
# worst
function stat(g, mode,   i, a, sum) {
	cnt = nfit = sum = 0; worst = ""; wabs = -1
	for (i = 1; i <= n; i++) {
		if (!in_set(g, i)) continue
		if (fit[i]) nfit++
		if (mode == "held" && fit[i]) continue
		cnt++
		a = err[i] < 0 ? -err[i] : err[i]
		sum += a
		if (a > wabs) { wabs = a; worst = id[i] " " sprintf("%+.1f", err[i]) }
	}
	mean = cnt ? sum / cnt : 0
}
function pct(x) { return sprintf("%.1f%%", x) }
# a row: its label, its count cell, its error cells
function row(label, c2, c3, c4, note) {
	nr++; lab[nr] = label; e2[nr] = c2; e3[nr] = c3; e4[nr] = c4
	wn[nr] = note
}
function set_row(label, g, mode, withfit) {
	stat(g, mode)
	row(label, cnt (withfit ? " (" nfit ")" : ""), pct(mean), pct(wabs),
	    worst)
}
function summary_row(label, key,   line, nn, mm, xx) {
	while ((getline line < summary) > 0)
		if (index(line, key) == 1) break
	close(summary)
	if (index(line, key) != 1) { row(label, "?", "?", "?", ""); return }
	match(line, /n=[0-9]+/); nn = substr(line, RSTART + 2, RLENGTH - 2)
	match(line, /mean=[0-9.]+/); mm = substr(line, RSTART + 5, RLENGTH - 5)
	match(line, /max=[0-9.]+/); xx = substr(line, RSTART + 4, RLENGTH - 4)
	row(label, nn " figures", mm "%", xx "%", "")
}
END {
	set_row("A: Korthikanti et al. 2022, A100, 16-bit", "A", "held", 1)
	summary_row("A: memory per GPU (state, activations, with seq+sel)", "section A memory:")
	set_row("B: Narayanan et al. 2021, A100, 32–3072 GPUs, 16-bit, as its run script ran them", "B", "held", 1)
	set_row("C: Megatron-Bridge dense, Llama 3 8B–405B, H100, B200, GB200, GB300, FP8", "Cfp8", "held", 1)
	set_row("D: NeMo 24.07, H100, FP8 (GPT-3, Llama 2, Nemotron)", "D", "held", 1)
	set_row("F: NeMo 25.02–25.07, B200, GB200, H100, FP8", "F", "held", 1)
	set_row("C: Megatron-Bridge dense, Llama 3 70B and 405B, GB200, GB300, NVFP4", "Cfp4", "held", 1)
	set_row("dense Megatron 16-bit (A, B), held-out", "dense16", "held", 0)
	# all dense rows, and the same without NVFP4 in parentheses
	stat("densenofp4", "held"); m2 = pct(mean); x2 = pct(wabs)
	stat("dense", "held")
	row("dense Megatron all (A–D, F), held-out", cnt "", pct(mean) " " m2,
	    pct(wabs) " " x2, worst)
	set_row("L: BLOOM-176B, Megatron-DeepSpeed", "L", "all", 0)
	# context parallelism without experts, each section'"'"'s mean
	stat("cpC", "all"); c = pct(mean)
	stat("cpD", "all"); d = pct(mean)
	stat("cpF", "all"); f = pct(mean)
	stat("cp", "all")
	row("C, D, F: context-parallel runs without experts (Llama 3, FP8)",
	    cnt " (" nfit ")", c " " d " " f, pct(wabs), worst)
	stat("moe16", "all"); m16 = pct(mean)
	stat("moe8", "all"); m8 = pct(mean)
	stat("moe", "all")
	row("C, F: MoE with expert parallelism (Qwen3, GPT-OSS, DeepSeek-V3, Kimi K2 with Muon, Mixtral; H100, B200, B300, GB200, GB300)",
	    cnt " (" nfit ")", m16 " " m8, sprintf("%.0f%%", wabs), worst)
	set_row("CP/EP rows, held-out", "par", "held", 0)
	set_row("H, I: PyTorch FSDP (MPT 7B–70B, Llama 2 eager and compiled; ZeRO-3, Llama 2 7B in HSDP), A100", "HIa100", "held", 1)
	set_row("H, I: PyTorch FSDP (MPT 1B–70B, Llama 2 eager and compiled; ZeRO-3, ZeRO-2, Llama 2 7B in HSDP), H100", "HIh100", "held", 1)
	set_row("C, F: Megatron-FSDP (Llama 3 8B–405B, FP8)", "mfsdp", "held", 1)
	set_row("FSDP rows (H, I, Megatron-FSDP), held-out", "fsdp", "held", 0)
	set_row("T: torchtitan'"'"'s own benchmarks, Llama 3.1 8B–405B, FSDP2 with TP, async TP, PP, compile, Float8 (tensorwise and rowwise), on the 500 W H100 of Grand Teton, no CP", "Tnocp", "all", 1)
	set_row("T: the same with CP 2–8 (PyTorch'"'"'s December 2024 ring, 65k–262k tokens)", "Tcp", "all", 1)
	set_row("T: Llama 3.1 8B on 32 and 64 H200 (Trainy), FSDP2, compile, Float8, no row fitted", "Th200", "all", 0)
	set_row("T rows, held-out", "T", "held", 0)
	summary_row("T: peak memory, as torchtitan reports it (what PyTorch'"'"'s caching allocator reserved)", "section T peak memory:")
	# hybrid Mamba models, each GPU family'"'"'s mean
	stat("hyH100", "held"); hh = pct(mean)
	stat("hyBw", "held"); hb = pct(mean)
	stat("hybrid", "held")
	row("C: hybrid Mamba models (Nemotron 3 Nano, Super, 3.5 Lightning), H100 and Blackwell, held-out",
	    cnt "", pct(mean) " " hh " " hb, pct(wabs), worst)
	set_row("C: Megatron-Bridge verification cards (Nemotron 3 Super and 3.5 Lightning, Qwen3-30B, GPT-OSS, DeepSeek-V3; H100, GB200), held-out", "card", "held", 0)

	if (check == "") {
		for (r = 1; r <= nr; r++)
			printf "| %s | %s | %s | %s |%s\n", lab[r], e2[r], e3[r],
				e4[r], wn[r] != "" ? "  " wn[r] : ""
		exit 0
	}
	bad = 0
	for (r = 1; r <= nr; r++) {
		found = 0
		while ((getline line < check) > 0) {
			if (index(line, "| " lab[r] " | ") != 1) continue
			found = 1
			break
		}
		close(check)
		if (!found) {
			printf "%s: no table row for \"%s\"\n", check, lab[r]
			bad++
			continue
		}
		line = substr(line, length(lab[r]) + 6)
		sub(/ *\| *$/, "", line)
		split(line, cell, / \| /)
		if (!same(nums(cell[1], "[0-9]+"), nums(e2[r], "[0-9]+"), 0) ||
		    !same(nums(cell[2], "[0-9.]+%"), nums(e3[r], "[0-9.]+%"), 1) ||
		    !same(nums(cell[3], "[0-9.]+%"), nums(e4[r], "[0-9.]+%"), 1)) {
			printf "%s: \"%s\": has %s | %s | %s, bench/validate.sh gives %s | %s | %s\n",
			       check, lab[r], cell[1], cell[2], cell[3], e2[r], e3[r], e4[r]
			bad++
		}
	}
	if (bad) exit 1
	printf "%s: the validation table matches bench/validate.sh (%d rows)\n", check, nr
}
# the numbers of s matching re, space-separated, in order
function nums(s, re,   out) {
	out = ""
	while (match(s, re)) {
		out = out (out == "" ? "" : " ") substr(s, RSTART, RLENGTH)
		s = substr(s, RSTART + RLENGTH)
	}
	return out
}
# the README cell'"'"'s numbers begin with the expected ones (prefix: the
# cell may say more after them)
function same(have, want, prefix) {
	if (prefix) return index(have " ", want " ") == 1
	return have == want
}
' rowsf="$TMP/rows.tsv" "$TOP"/bench/data/*.tsv "$TMP/rows.tsv"
