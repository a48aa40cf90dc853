#!/bin/sh
# Runs every benchmark; each prints its figure beside the target from DESIGN.md.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
status=0
for b in "$BUILD"/bench/bench_*; do
	[ -x "$b" ] || continue
	"$b" || status=1
done
exit $status
