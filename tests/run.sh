#!/bin/sh
# Runs every test and ends with one line: "N passed, N failed".
#   unit tests (cmocka, TAP output), integration and terminal (tmux) scripts (TAP via
#   tests/integration/lib.sh),
#   fuzz corpus replay (one check per fuzz target).
# Usage: tests/run.sh BUILD_DIR [FILTER]   (FILTER: only tests whose name contains it)
set -u
BUILD=${1:-build}
FILTER=${2:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
export XIPBENCH="$BUILD/xipbench" XB_BUILD="$BUILD" XB_SRC="$SRC"
export CMOCKA_MESSAGE_OUTPUT=TAP
pass=0
fail=0
LOG="$BUILD/test-logs/run.$$"
mkdir -p "$LOG"

# Counts "ok"/"not ok" lines of one TAP stream; a non-zero exit with no failing line
# counts as one failure (a crash or an abort).
tally() { # name rc logfile
	p=$(grep -c '^ok ' "$3" 2>/dev/null) || p=0
	f=$(grep -c '^not ok ' "$3" 2>/dev/null) || f=0
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $1 ($p passed, $f failed; log: $3)"
		grep -E '^not ok|^#' "$3" | head -n 30
		[ "$2" -ne 0 ] && tail -n 15 "$3"
	else
		echo "ok   $1 ($p)"
	fi
}

wanted() { [ -z "$FILTER" ] || case "$1" in *"$FILTER"*) return 0 ;; *) return 1 ;; esac; }

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	n=$(basename "$t")
	wanted "$n" || continue
	(cd "$SRC" && "$t") >"$LOG/$n.log" 2>&1
	tally "$n" $? "$LOG/$n.log"
done

for t in "$SRC"/tests/integration/test_*.sh "$SRC"/tests/tui/test_*.sh; do
	[ -f "$t" ] || continue
	n=$(basename "$t" .sh)
	wanted "$n" || continue
	work=$(mktemp -d "${TMPDIR:-/tmp}/xb-$n.XXXXXX")
	(cd "$SRC" && XB_WORK="$work" sh "$t") >"$LOG/$n.log" 2>&1
	rc=$?
	tally "$n" $rc "$LOG/$n.log"
	[ $rc -eq 0 ] && rm -rf "$work"
done

for t in "$BUILD"/fuzz-replay/fuzz_*; do
	[ -x "$t" ] || continue
	n=$(basename "$t")
	wanted "$n" || continue
	corpus="$SRC/tests/fuzz/corpus/${n#fuzz_}"
	"$t" "$corpus" >"$LOG/$n.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then echo "ok 1 - $n corpus" >>"$LOG/$n.log"; fi
	tally "$n" $rc "$LOG/$n.log"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
