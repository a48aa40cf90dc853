#!/bin/sh
# Runs every benchmark; each prints its figure beside the target from DESIGN.md. Last, the
# whole experiment (`xipbench experiment`, every layout of the study's two tables) is timed
# against the issue's target of 5 minutes.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
status=0
for b in "$BUILD"/bench/bench_*; do
	[ -x "$b" ] || continue
	"$b" || status=1
done
out=$BUILD/bench-experiment
rm -rf "$out"
start=$(date +%s.%N)
if "$BUILD"/xipbench experiment --out "$out" >"$BUILD/bench-experiment.txt" 2>"$BUILD/bench-experiment.log"; then
	end=$(date +%s.%N)
	rows=$(grep -c 'misses per echo' "$BUILD/bench-experiment.log")
	echo "$start $end $rows" | awk '{ printf "full experiment from a clean build folder (%d layouts, builds included): %.1f s (target < 300 s)\n", $3, $2 - $1 }'
	# the planned rows: planning time (target <= 30 s) and misses against OPT and stock
	sed -n '/^Planning (seed/,/^$/p' "$BUILD/bench-experiment.txt"
else
	echo "full experiment failed: see $BUILD/bench-experiment.log"
	status=1
fi
exit $status
