#!/bin/sh
# run.sh [SECONDS] [READER...] - build the libFuzzer targets of pd2bw's
# readers with clang into build/fuzz/ and run each for SECONDS (default
# 600), then report what was found.
#
# Readers: pipedream model profile cluster catalog plan node kernels
# (default: all).  Each target is tests/fuzz/fuzz_<reader>.c linked with
# every lib/*/*.c (node also with topo/node.c, kernels with
# profiler/calibrate.c), all built
# with -fsanitize=fuzzer,address,undefined.  Seeds come from
# tests/fuzz/corpus/<reader>/ (never written to); new inputs go to
# build/fuzz/corpus/<reader>/, crashes to build/fuzz/artifacts/<reader>/.
#
# Environment: CLANG (default clang), FUZZ_JOBS (targets run at once,
# default 1), FUZZ_NICE (niceness, default 10), FUZZ_FLAGS (more libFuzzer
# options).  Exit status: 0 when nothing was found, 1 on a finding, 2 when
# the build fails.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 2

SECS=600
case ${1:-} in
[0-9]*) SECS=$1; shift ;;
esac
READERS=${*:-pipedream model profile cluster catalog plan node kernels}
CLANG=${CLANG:-clang}
JOBS=${FUZZ_JOBS:-1}
NICE=${FUZZ_NICE:-10}
B=build/fuzz

command -v "$CLANG" >/dev/null 2>&1 || {
	echo "run.sh: '$CLANG' not found; fuzzing needs clang's libFuzzer" >&2
	exit 2
}
PKG_CFLAGS=$(pkg-config --cflags hwloc yaml-0.1 2>/dev/null)
PKG_LIBS=$(pkg-config --libs hwloc yaml-0.1 2>/dev/null) ||
	PKG_LIBS="-lhwloc -lyaml"
[ -n "$PKG_LIBS" ] || PKG_LIBS="-lhwloc -lyaml"
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
	[ "$r" = node ] && extra=topo/node.c
	[ "$r" = kernels ] && extra=profiler/calibrate.c
	echo "LINK $B/fuzz_$r"
	# shellcheck disable=SC2086
	$CLANG $CFLAGS -fsanitize=fuzzer -o "$B/fuzz_$r" "tests/fuzz/fuzz_$r.c" \
		$extra $objs $LIBS || exit 2
done

# --- run ---
run_one() {
	r=$1
	mkdir -p "$B/corpus/$r" "$B/artifacts/$r"
	touch "$B/$r.stamp"
	dict=
	[ -f "tests/fuzz/$r.dict" ] && dict="-dict=tests/fuzz/$r.dict"
	# -close_fd_mask=2: the readers' messages for rejected input are
	# noise; libFuzzer and the sanitizers keep their own stderr.
	# shellcheck disable=SC2086
	nice -n "$NICE" "$B/fuzz_$r" -max_total_time="$SECS" -timeout=10 \
		-rss_limit_mb=2048 -max_len=16384 -close_fd_mask=2 \
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
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$r.log" |
		tail -1)
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
