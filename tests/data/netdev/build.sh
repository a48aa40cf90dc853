#!/bin/sh
# build.sh: builds the network peer's test device (tests/data/netdev/*.c), with the USB
# register helpers of tests/data/usb, with the virtual Pico's test-program builder:
# sh tests/data/netdev/build.sh OUT (see tests/data/sim/build.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
exec sh "$HERE/../sim/build.sh" "${1:?usage: build.sh OUT}" "$HERE" "$HERE/../usb"
