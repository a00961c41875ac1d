#!/bin/sh
# readme.sh - run every command of README.md, as written, in a fresh clone.
#
# The commands are the lines of the README's ```sh blocks (a line ending
# in a backslash continues), run in order by one shell in a clone of this
# checkout (HEAD plus the uncommitted changes of tracked files), so the
# set-up's export reaches the examples.  A command that fails fails the
# test, except:
#   - "sudo ..." lines install system packages: skipped;
#   - a command that needs a GPU (the cuda backend, --gemm) and says on a
#     machine without one which backends work there: skipped;
#   - with README_QUICK=1, commands whose comment says "minutes" (make
#     check itself, the CPU profile of GPT-2 XL): skipped.
# Then the pictures example must have planned a pipeline (depth > 1).
# Ends with "N passed, N failed, N skipped"; exit 1 on any failure.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
QUICK=${README_QUICK:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0 skip=0

git clone -q "$TOP" "$tmp/pd2bw" || exit 1
git -C "$TOP" diff HEAD --binary >"$tmp/wip.diff"
if [ -s "$tmp/wip.diff" ]; then
	git -C "$tmp/pd2bw" apply "$tmp/wip.diff" || exit 1
fi

# One command a line, continuations joined, comment-only lines dropped.
awk '
	/^```sh[ \t]*$/ { inblock = 1; next }
	/^```/ { inblock = 0; next }
	!inblock { next }
	{
		line = $0
		if (cmd != "") line = cmd " " line
		if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); cmd = line; next }
		cmd = ""
		if (line ~ /^[ \t]*(#|$)/) next
		print line
	}
' "$TOP/README.md" >"$tmp/commands"
[ -s "$tmp/commands" ] || { echo "readme.sh: no commands in README.md"; exit 1; }

# The commands run here, not inside whatever make started this.
unset MAKEFLAGS MFLAGS MAKELEVEL
cd "$tmp/pd2bw" || exit 1
n=0
while IFS= read -r cmd <&3; do
	n=$((n + 1))
	case $cmd in
	sudo\ *)
		echo "SKIP readme $n: $cmd (installs system packages)"
		skip=$((skip + 1))
		continue
		;;
	esac
	if [ "$QUICK" = 1 ] && printf '%s\n' "$cmd" | grep -q '#.*minutes'; then
		echo "SKIP readme $n: $cmd (README_QUICK=1)"
		skip=$((skip + 1))
		continue
	fi
	echo "run  readme $n: $cmd"
	start=$(date +%s)
	eval "$cmd" >"$tmp/out" 2>"$tmp/err" 3<&-
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		echo "ok   readme $n (${secs}s)"
		pass=$((pass + 1))
	elif grep -q "backends that work on this machine\|times a GPU's GEMM" \
		"$tmp/err"; then
		echo "SKIP readme $n: no GPU here: $(tail -1 "$tmp/err")"
		skip=$((skip + 1))
	else
		echo "FAIL readme $n (exit $rc, ${secs}s): $cmd"
		tail -15 "$tmp/err" | sed 's/^/  /'
		fail=$((fail + 1))
	fi
done 3<"$tmp/commands"

# The pictures example (the last to write plan.yaml) shows a pipeline.
d=$(sed -n 's/^  depth: //p' plan.yaml 2>/dev/null | head -1)
if [ "${d:-0}" -gt 1 ] 2>/dev/null; then
	echo "ok   readme: the pictures example plans $d stages"
	pass=$((pass + 1))
else
	echo "FAIL readme: the pictures example plans no pipeline (depth ${d:-none})"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
