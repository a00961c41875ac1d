#!/bin/sh
# run.sh BUILD_DIR - run every test of pd2bw and print the totals.
#
# Unit tests: each $BUILD/tests/test_* binary prints "ok"/"not ok" lines;
# exit 77 means the whole program was skipped (no GPU, ...).  The scale
# tests (test_maxima) run from $PLAIN when BUILD_DIR has none.
# Golden tests: tests/cli/<tool>/<case>.cmd holds one shell command line,
# run in an empty temporary directory with the programs on PATH, $TOP set
# to the source tree and PD2BW_DETERMINISTIC=1; stdout, stderr and the exit
# status are compared with <case>.out, .err and .rc (skipped when the
# program <case>.needs names was not built; with <case>.mustpass it must
# also exit 0).  UPDATE=1 rewrites
# those selected by CASES (required with UPDATE).
# CASES=GLOB (e.g. CASES='plan/*') limits the golden cases run (and
# rewritten); UNIT=0 skips the unit tests.
# Unit programs and golden cases run JOBS at a time (default: one a core),
# the slow ones first; each says when it ends, the slow ones with their
# seconds and CPU seconds.  TIMES=FILE writes every job's to FILE.
# PLAIN=DIR names an optimised build without sanitizers (default: BUILD_DIR
# itself); cases that run a program hundreds of times (emit/sweep) take it
# from $PLAIN, make check passes build/.
# Man pages are linted with mandoc -Tlint (or groff when mandoc is absent).
set -u

# One job, run by xargs below: "unit PROGRAM ID" or "cli CASE.cmd ID"; the
# result goes to $RES/ID.res as "pass N", "fail N" or "skip N", what to
# show to $RES/ID.log, its seconds and CPU seconds to $RES/ID.time.  B,
# TOP, PLAIN and RES come from the environment the whole run exported.
# A job starts few processes (each costs milliseconds, and there are
# hundreds of jobs): its program, and one awk to compare or count.
if [ "${1:-}" = --one ]; then
	kind=$2 what=$3 id=$4
	# seconds since boot, without a process (date would be one)
	now() {
		if read -r up _ </proc/uptime 2>/dev/null; then
			echo "${up%.*}"
		else
			date +%s
		fi
	}
	start=$(now)
	# "SECONDS CPU NAME" from the CPU times of this shell's finished
	# children (the `times` builtin, written to a file: a pipeline or
	# $(...) would run it in a subshell that has no children)
	finish() {
		times >"$RES/$id.times"
		awk -v secs=$(($(now) - start)) -v name="$1" 'NR == 2 {
			gsub(/[ms]/, " ")
			printf "%d %.1f %s\n", secs, $1 * 60 + $2 + $3 * 60 + $4,
				name }' "$RES/$id.times" >"$RES/$id.time"
	}
	if [ "$kind" = unit ]; then
		name=${what##*/}
		"$what" >"$RES/$id.out" 2>&1
		rc=$?
		# ok, skipped-ok and not-ok lines, and what to show
		awk -v rc=$rc -v name="$name" -v res="$RES/$id.res" \
		    -v lg="$RES/$id.log" '
		/# SKIP / && !why { why = $0; sub(/.*# SKIP /, "", why) }
		/^ok / { if (/# SKIP/) s++; else p++ }
		/^not ok/ { f++; ctx = 4 }
		ctx > 0 { print name ": " $0 > lg; ctx-- }
		{ last[NR % 5] = $0 }
		END {
			if (rc == 77) {
				print "SKIP " name ": " why > lg
				print "skip 1" > res
				exit
			}
			if (s) print "skip " s > res
			if (f || rc) {
				print "fail " (f ? f : 1) " " name > res
				if (!f) {
					print name ": exited " rc > lg
					for (i = NR - 4; i <= NR; i++)
						if (i > 0) print last[i % 5] > lg
				}
			}
			print "pass " p + 0 > res
		}' "$RES/$id.out"
		[ ! -f "$RES/$id.log" ] || cat "$RES/$id.log"
		finish "unit/$name"
		read -r secs cpu _ <"$RES/$id.time"
		[ "$rc" = 77 ] || echo "  unit $name: done ($secs s, $cpu s CPU)"
		exit 0
	fi
	cmd=$what
	base=${cmd%.cmd}
	name=${base#"$TOP"/tests/cli/}
	# <case>.needs names a program of $B the case runs (one built only
	# with CUDA, say); without it the case is skipped
	if [ -f "$base.needs" ]; then
		read -r need <"$base.needs"
		if [ ! -x "$B/$need" ]; then
			echo "SKIP cli/$name: no $need in this build"
			echo "skip 1" >"$RES/$id.res"
			exit 0
		fi
	fi
	# the case's directory stays under $RES, which the run removes
	dir=$RES/w.$id
	mkdir "$dir" || exit 1
	(cd "$dir" && sh "$cmd" >"$dir/.stdout" 2>"$dir/.stderr"
	 echo $? >"$dir/.rc")
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$dir/.stdout" "$base.out"
		cp "$dir/.stderr" "$base.err"
		cp "$dir/.rc" "$base.rc"
	fi
	# <case>.mustpass: the case exits 0 whatever its expected files say
	# (a gate, such as validate.sh --check, whose failure must not be
	# recorded as the expectation)
	must=0
	[ ! -f "$base.mustpass" ] || must=1
	# the expected files (empty when there is none)
	eo=$base.out ee=$base.err er=$base.rc
	[ -f "$eo" ] || { eo=$dir/.none.out; : >"$eo"; }
	[ -f "$ee" ] || { ee=$dir/.none.err; : >"$ee"; }
	[ -f "$er" ] || { er=$dir/.none.rc; : >"$er"; }
	# one awk compares the three pairs byte for byte (each file read
	# whole: RS is a byte the outputs do not hold, so newlines count,
	# the last one too): 0 when all are equal
	if awk -v must=$must -v RS='\001' '
		function slurp(f,  s, l, n) {
			while ((getline l <f) > 0)
				s = (n++ ? s RS : "") l
			close(f)
			return s
		}
		BEGIN {
			for (i = 1; i < ARGC; i += 2)
				if (slurp(ARGV[i]) != slurp(ARGV[i + 1]))
					exit 1
			if (must && slurp(ARGV[6]) != "0\n")
				exit 1
			exit 0
		}' "$eo" "$dir/.stdout" "$ee" "$dir/.stderr" "$er" \
		"$dir/.rc"; then
		echo "pass 1" >"$RES/$id.res"
	else
		echo "fail 1 cli/$name" >"$RES/$id.res"
		{
			echo "FAIL cli/$name"
			if [ $must = 1 ] && [ "$(cat "$dir/.rc")" != 0 ]; then
				echo "exit status $(cat "$dir/.rc"); $name must exit 0"
			fi
			{
				diff -u "$eo" "$dir/.stdout"
				diff -u "$ee" "$dir/.stderr"
				diff -u "$er" "$dir/.rc"
			} | head -40
		} >"$RES/$id.log" 2>&1
		cat "$RES/$id.log"
	fi
	finish "cli/$name"
	read -r secs cpu _ <"$RES/$id.time"
	[ "$secs" -lt 5 ] || echo "  cli/$name ($secs s, $cpu s CPU)"
	exit 0
fi

B=${1:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) ;; *) B=$TOP/$B ;; esac
PLAIN=${PLAIN:-$B}
case $PLAIN in /*) ;; *) PLAIN=$TOP/$PLAIN ;; esac

# The CPU seconds (user + system) of this shell's finished children,
# from the file `times` wrote.
cpu_s() {
	sed -n 2p "$1" | tr 'ms' '  ' |
		awk '{ printf "%.1f", $1 * 60 + $2 + $3 * 60 + $4 }'
}

if [ "${UPDATE:-0}" = 1 ] && [ -z "${CASES:-}" ]; then
	echo "run.sh: UPDATE=1 needs CASES=tool/* (e.g. CASES='topo/*'), so" \
		"one tool's run cannot rewrite another tool's expectations" >&2
	exit 2
fi
pass=0 fail=0 skip=0
failed_names=

note_fail() {
	fail=$((fail + 1))
	failed_names="$failed_names $1"
}

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
RES=$(mktemp -d)
export RES B TOP PLAIN
trap 'rm -rf "$RES"' EXIT INT TERM
# The golden cases' environment; OpenBLAS on one thread, as jobs run side
# by side.
export PATH="$B:$PATH" PD2BW_DETERMINISTIC=1 LC_ALL=C
# python3 is the interpreter itself, linked from $RES/bin: a version
# manager's shim (pyenv's is a bash script that runs pyenv) costs more
# than the Python it starts.
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -x "$py" ]; then
	mkdir "$RES/bin" && ln -s "$py" "$RES/bin/python3" &&
		PATH="$B:$RES/bin:${PATH#"$B:"}"
fi
# ASan records 10 frames of each allocation's stack, not 30: a report
# still names the caller's caller's caller, and the suite's allocation-
# heavy cases (plans and clusters at their maxima) run a sixth faster.
export ASAN_OPTIONS=detect_leaks=1:malloc_context_size=10 OPENBLAS_NUM_THREADS=1

# The job list, longest first so that the last to end is a short one:
# those SLOW names (most CPU first, from TIMES=FILE on 2 cores), then the
# emulation ones, then the rest.
SLOW='cli/emit/sweep unit/test_prof_gpu_emu_shuffled unit/test_prof_gpu_emu
cli/bench/validate unit/test_maxima
cli/input/catalog-30k unit/test_emu_flash_shuffled unit/test_emu_flash
cli/emit/inject-names unit/test_plan_query cli/profile/cuda-no-gpu-hint'
{
	if [ "${UNIT:-1}" != 0 ]; then
		for t in "$B"/tests/test_*; do
			[ -x "$t" ] || continue
			case $t in
			*emu*) echo "1 unit/${t##*/} unit $t" ;;
			*) echo "3 unit/${t##*/} unit $t" ;;
			esac
		done
		# the scale tests, which the sanitizer build leaves out
		for t in "$PLAIN"/tests/test_maxima; do
			[ -x "$t" ] && [ ! -e "$B/tests/${t##*/}" ] &&
				echo "3 unit/${t##*/} unit $t"
		done
	fi
	for cmd in "$TOP"/tests/cli/${CASES:-*/*}.cmd; do
		[ -f "$cmd" ] || continue
		name=${cmd#"$TOP"/tests/}
		case $cmd in
		*/emu-*) echo "2 ${name%.cmd} cli $cmd" ;;
		*) echo "3 ${name%.cmd} cli $cmd" ;;
		esac
	done
} | awk -v slow="$SLOW" '
	BEGIN { n = split(slow, a); for (i = 1; i <= n; i++) rank[a[i]] = i }
	{ id = $2; gsub(/\//, "_", id)
	  print ($2 in rank ? rank[$2] : n + $1), NR, $3, $4, id }' |
	sort -n -k1,1 -k2,2 | cut -d' ' -f3- >"$RES/jobs"
njobs=$(wc -l <"$RES/jobs")
echo "run.sh: $njobs test programs and golden cases, $JOBS at a time"
start=$(date +%s)
[ "$njobs" -eq 0 ] || xargs -P "$JOBS" -L 1 sh "$0" --one <"$RES/jobs"
for r in "$RES"/*.res; do
	[ -f "$r" ] || continue
	while read -r what n name; do
		case $what in
		pass) pass=$((pass + n)) ;;
		skip) skip=$((skip + n)) ;;
		fail) fail=$((fail + n)) failed_names="$failed_names $name" ;;
		esac
	done <"$r"
done
times >"$RES/all.times"
echo "run.sh: tests done in $(($(date +%s) - start)) s," \
	"$(cpu_s "$RES/all.times") s CPU; man page lint"
# TIMES=FILE keeps each job's seconds, CPU seconds and name, most CPU
# first (what the order of the job list above comes from)
[ -z "${TIMES:-}" ] || cat "$RES"/*.time | sort -k2,2 -rn >"$TIMES"

# --- man pages ---
# All of mandoc -Tlint, style suggestions included.  mandoc looks up .Xr
# references in /usr/share/man only, so before installation it cannot
# find our own pages, nor lstopo(1) and hwloc(7) where hwloc's pages are
# not installed: those "not found" lines alone are forgiven.
xr_ok='referenced manual not found: Xr \(pd2bw\(-plan\|-profile\|-topo\)\? [15]\|lstopo 1\|hwloc 7\)'
for page in "$TOP"/man/*.[15]; do
	[ -f "$page" ] || continue
	if command -v mandoc >/dev/null 2>&1; then
		msg=$(mandoc -Tlint "$page" 2>&1 | grep -v "$xr_ok")
	else
		msg=$(groff -mdoc -ww -Tutf8 -z "$page" 2>&1)
	fi
	if [ -z "$msg" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL man lint $(basename "$page")"
		printf '%s\n' "$msg" | head -10
		note_fail "man/$(basename "$page")"
	fi
done

# --- expectations ---
# No expected output may hold the checkout's own path: a fresh clone
# elsewhere would fail it (a case prints TOP/ for $TOP/).
leaked=$(grep -l -F "$TOP/" "$TOP"/tests/cli/*/*.out "$TOP"/tests/cli/*/*.err 2>/dev/null)
if [ -z "$leaked" ]; then
	pass=$((pass + 1))
else
	echo "FAIL expected outputs hold the checkout's path $TOP/:" $leaked
	note_fail "cli/expectations"
fi

[ -z "$failed_names" ] || echo "failed:$failed_names"
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail -eq 0 ]
