#!/bin/sh
# `make run`: the layout study on the virtual Pico (`xipbench experiment`):
# the echo firmware built (stock, LTO, XIP cache off), profiled through the virtual probe,
# layouts planned, relinked, reflashed through the probe and measured; the study's two tables
# with the predicted misses and the OPT bound beside every row. Progress on standard error;
# the history of every run stays in build/experiment/runs.db.
set -eu
BUILD=${1:-build}
OUT=${XIPBENCH_EXPERIMENT_DIR:-$BUILD/experiment}
exec "$BUILD/xipbench" experiment --out "$OUT"
