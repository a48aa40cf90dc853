#!/bin/sh
# build.sh: builds the USB device test programs (tests/data/usb/*.c) with the virtual Pico's
# test-program builder: sh tests/data/usb/build.sh OUT (see tests/data/sim/build.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
exec sh "$HERE/../sim/build.sh" "${1:?usage: build.sh OUT}" "$HERE"
