#!/bin/sh
# run.sh [SECONDS] [READER...] - build the libFuzzer targets of pd2bw's
# readers with clang into build/fuzz/ and run each for SECONDS (default
# 600), then report what was found.
#
# Targets: the readers pipedream model profile cluster catalog plan node
# kernels, the hwloc XML path topo_xml (pd2bw-topo --input), and the
# command lines cli_plan cli_profile cli_topo (default: all).  Each target
# is tests/fuzz/fuzz_<target>.c linked with every lib/*/*.c (node also
# with topo/node.c, kernels with profiler/calibrate.c, topo_xml with
# topo/*.c, cli_<prog> with that program's main.c and modules), all built
# with -fsanitize=fuzzer,address,undefined.  Seeds come from
# tests/fuzz/corpus/<target>/ (never written to); new inputs go to
# build/fuzz/corpus/<target>/, crashes to build/fuzz/artifacts/<target>/.
# The cli_* targets run chrooted (as root) in build/fuzz/jail-<target>/,
# which holds their corpus, artifacts and a few small input files
# (fuzz_cli.h says why).
#
# Environment: CLANG (default clang), FUZZ_JOBS (targets run at once,
# default 1), FUZZ_NICE (niceness, default 10), FUZZ_TIMEOUT (seconds one
# input may take before libFuzzer stops with a timeout, default 60),
# FUZZ_FLAGS (more libFuzzer options).  libFuzzer's timeout is wall-clock
# time: at nice 19 on a busy machine a 1 ms input has taken 14 s, so the
# default is generous; an input slower than 10 s is still written as a
# slow-unit-* artifact and reported as a finding below.  Exit status: 0
# when nothing was found, 1 on a finding, 2 when the build fails.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 2

SECS=600
case ${1:-} in
[0-9]*) SECS=$1; shift ;;
esac
READERS=${*:-pipedream model profile cluster catalog plan node kernels \
	topo_xml cli_plan cli_profile cli_topo}
CLANG=${CLANG:-clang}
JOBS=${FUZZ_JOBS:-1}
NICE=${FUZZ_NICE:-10}
TIMEOUT=${FUZZ_TIMEOUT:-60}
B=build/fuzz

command -v "$CLANG" >/dev/null 2>&1 || {
	echo "run.sh: '$CLANG' not found; fuzzing needs clang's libFuzzer" >&2
	exit 2
}
# the profiler's cpu backend (cli_profile) calls a CBLAS: OpenBLAS, or
# any cblas.pc, as the Makefile finds it
BLAS=
for pc in openblas cblas; do
	pkg-config --exists "$pc" 2>/dev/null && BLAS=$pc && break
done
PKG_CFLAGS=$(pkg-config --cflags hwloc yaml-0.1 $BLAS 2>/dev/null)
PKG_LIBS=$(pkg-config --libs hwloc yaml-0.1 $BLAS 2>/dev/null) ||
	PKG_LIBS="-lhwloc -lyaml -lopenblas"
[ -n "$PKG_LIBS" ] || PKG_LIBS="-lhwloc -lyaml -lopenblas"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer \
 -Iinclude $PKG_CFLAGS $SAN"
DATADIR='-DPD2BW_DATADIR="/usr/local/share/pd2bw"'
LIBS="$PKG_LIBS -lglpk -lm -ldl"

# --- build ---
mkdir -p "$B/obj"
objs=
for src in lib/*/*.c; do
	obj=$B/obj/$(basename "$src" .c).o
	if [ ! -f "$obj" ] ||
	   [ -n "$(find "$src" include -newer "$obj" 2>/dev/null)" ]; then
		echo "CC $src"
		# shellcheck disable=SC2086
		$CLANG $CFLAGS "$DATADIR" -fsanitize=fuzzer-no-link -c \
			-o "$obj" "$src" || exit 2
	fi
	objs="$objs $obj"
done
for r in $READERS; do
	[ -f "tests/fuzz/fuzz_$r.c" ] || {
		echo "run.sh: no target for '$r'" >&2
		exit 2
	}
	extra=
	cli="-Dmain=fz_prog_main -Wl,--wrap=exit,--wrap=atexit,--wrap=fclose"
	case $r in
	node) extra=topo/node.c ;;
	kernels) extra=profiler/calibrate.c ;;
	topo_xml) extra=$(ls topo/*.c | grep -v '^topo/main.c$') ;;
	cli_plan) extra="-Iplanner $cli $(ls planner/*.c planner/*/*.c)" ;;
	cli_profile) extra="-Iprofiler $cli $(ls profiler/*.c)" ;;
	cli_topo) extra="-Itopo $cli $(ls topo/*.c)" ;;
	esac
	echo "LINK $B/fuzz_$r"
	# shellcheck disable=SC2086
	$CLANG $CFLAGS "$DATADIR" -fsanitize=fuzzer -o "$B/fuzz_$r" \
		"tests/fuzz/fuzz_$r.c" $extra $objs $LIBS || exit 2
done

# --- run ---
# The jail of a cli_* target: its corpus, seeds, dictionary and the small
# files the seeds name (p.yaml profile, c.yaml cluster, m.yaml model,
# h.yaml a hybrid model, s.yaml one with latent experts and a shared MTP
# module, x.xml hwloc XML, n.yaml node file, g.yaml GPU
# catalog, q.json a
# Hugging Face mixture of experts).
make_jail() {
	j=$B/jail-$1
	mkdir -p "$j/corpus" "$j/artifacts" "$j/seeds"
	cp tests/fuzz/corpus/"$1"/* "$j/seeds/" 2>/dev/null
	[ -f "tests/fuzz/$1.dict" ] && cp "tests/fuzz/$1.dict" "$j/dict"
	cp tests/data/plan/tiny-profile.yaml "$j/p.yaml"
	cp tests/data/plan/tiny-cluster.yaml "$j/c.yaml"
	cp tests/data/profile/tiny.yaml "$j/m.yaml"
	cp tests/data/profile/tiny-hybrid.yaml "$j/h.yaml"
	cp tests/data/profile/tiny-super.yaml "$j/s.yaml"
	cp tests/data/topo/pcie4.xml "$j/x.xml"
	cp tests/fuzz/corpus/node/pcie4.yaml "$j/n.yaml"
	cp tests/data/catalog/user-gpus.yaml "$j/g.yaml"
	cp tests/data/hf/qwen3-30b-a3b.json "$j/q.json"
}

run_one() {
	r=$1
	mkdir -p "$B/corpus/$r" "$B/artifacts/$r"
	touch "$B/$r.stamp"
	dict=
	[ -f "tests/fuzz/$r.dict" ] && dict="-dict=tests/fuzz/$r.dict"
	case $r in
	cli_*)
		make_jail "$r"
		rm -rf "$B/jail-$r/artifacts" && mkdir "$B/jail-$r/artifacts"
		dict=
		[ -f "$B/jail-$r/dict" ] && dict=-dict=dict
		# leaks: main() is left half-way by its exits, and what it
		# holds stays with the process (a couple of KB a run on
		# average, 70 KB for some): the target runs in rounds of at
		# most 60 s, each a fresh process on the corpus so far, so
		# that the RSS limit catches one input's excess, not the
		# sum (libFuzzer's fork mode needs a shell the jail lacks)
		# (no /proc in the jail for LeakSanitizer's exit check, no
		# symbolizer: the report's binary+offset lines symbolize
		# with llvm-symbolizer --obj=build/fuzz/fuzz_$r outside)
		left=$SECS rc=0
		: >"$B/$r.log"
		while [ "$left" -gt 0 ] && [ "$rc" = 0 ]; do
			t=$((left < 60 ? left : 60))
			# the small files again: inputs write over them
			make_jail "$r"
			# shellcheck disable=SC2086
			(cd "$B/jail-$r" && ASAN_OPTIONS=detect_leaks=0 \
				nice -n "$NICE" "$TOP/$B/fuzz_$r" \
				-max_total_time="$t" -timeout="$TIMEOUT" \
				-detect_leaks=0 -rss_limit_mb=2048 -max_len=4096 \
				-close_fd_mask=2 -print_final_stats=1 \
				-artifact_prefix=artifacts/ \
				$dict ${FUZZ_FLAGS:-} corpus seeds) \
				>>"$B/$r.log" 2>&1
			rc=$?
			left=$((left - t))
		done
		echo $rc >"$B/$r.rc"
		cp "$B/jail-$r"/artifacts/* "$B/artifacts/$r/" 2>/dev/null
		return
		;;
	esac
	# -close_fd_mask=2: the readers' messages for rejected input are
	# noise; libFuzzer and the sanitizers keep their own stderr.
	# topo_xml forks (hwloc's import is tried in a child first): no
	# RSS thread, which a child could inherit holding malloc's lock.
	rss=2048
	[ "$r" = topo_xml ] && rss=0
	# shellcheck disable=SC2086
	LSAN_OPTIONS=suppressions=$TOP/tests/fuzz/lsan.supp \
	nice -n "$NICE" "$B/fuzz_$r" -max_total_time="$SECS" -timeout="$TIMEOUT" \
		-rss_limit_mb=$rss -max_len=16384 -close_fd_mask=2 \
		-print_final_stats=1 -artifact_prefix="$B/artifacts/$r/" \
		$dict ${FUZZ_FLAGS:-} "$B/corpus/$r" "tests/fuzz/corpus/$r" \
		>"$B/$r.log" 2>&1
	echo $? >"$B/$r.rc"
}

echo "fuzzing $READERS for $SECS s each, $JOBS at a time"
pids=
n=0
for r in $READERS; do
	rm -f "$B/$r.rc"
	run_one "$r" &
	pids="$pids $!"
	n=$((n + 1))
	if [ "$n" -ge "$JOBS" ]; then
		wait
		pids=
		n=0
	fi
done
wait

# --- report ---
found=0
for r in $READERS; do
	rc=$(cat "$B/$r.rc" 2>/dev/null || echo '?')
	# (summed over the rounds of a cli_* target)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$r.log" |
		awk '{ s += $1 } END { if (NR) print s }')
	cov=$(grep -o 'cov: [0-9]*' "$B/$r.log" | tail -1)
	# Only what this run found; older artifacts stay for reference.
	arts=$(find "$B/artifacts/$r" -type f -newer "$B/$r.stamp" \
		2>/dev/null | sort)
	printf '%-10s rc=%s executions=%s %s\n' "$r" "$rc" "${execs:-?}" "$cov"
	if [ "$rc" != 0 ] || [ -n "$arts" ]; then
		found=1
		for a in $arts; do
			echo "  finding: $a (reproduce: $B/fuzz_$r $a)"
		done
		grep -m1 -A12 '^==[0-9]*==ERROR\|^fuzz: \|runtime error' \
			"$B/$r.log" | sed 's/^/  /'
	fi
done
[ $found = 0 ] && echo "no findings"
exit $found
