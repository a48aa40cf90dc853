#!/bin/sh
# build.sh: builds the virtual probe's test programs (tests/data/dap/*.c) with the virtual
# Pico's test-program builder: sh tests/data/dap/build.sh OUT (see tests/data/sim/build.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
exec sh "$HERE/../sim/build.sh" "${1:?usage: build.sh OUT}" "$HERE"
