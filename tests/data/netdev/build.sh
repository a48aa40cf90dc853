#!/bin/sh
# build.sh: builds the network peer's test device (tests/data/netdev/*.c) with
# arm-none-eabi-gcc, with the USB register helpers of tests/data/usb and the start-up code
# and linker script of tests/data/sim.
#   sh tests/data/netdev/build.sh OUT
# For each NAME.c: OUT/NAME.elf (what the tests load), OUT/NAME.sym (arm-none-eabi-nm).
# Rebuilds only what is older than its sources; the output depends only on the sources.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SIM="$HERE/../sim"
USB="$HERE/../usb"
OUT=${1:?usage: build.sh OUT}
mkdir -p "$OUT"
CC=arm-none-eabi-gcc
FLAGS="-mcpu=cortex-m0plus -mthumb -O2 -g -ffreestanding -nostdlib -ffunction-sections \
	-fno-jump-tables -Wall -Wextra"
for src in "$HERE"/*.c; do
	name=$(basename "$src" .c)
	elf="$OUT/$name.elf"
	if [ -f "$elf" ] && [ "$elf" -nt "$src" ] && [ "$elf" -nt "$USB/usbdev.h" ] &&
		[ "$elf" -nt "$SIM/start.S" ] && [ "$elf" -nt "$SIM/sim.ld" ] &&
		[ "$elf" -nt "$SIM/sim.h" ] && [ "$elf" -nt "$HERE/build.sh" ]; then
		continue
	fi
	# shellcheck disable=SC2086
	$CC $FLAGS -I"$USB" -I"$SIM" -T "$SIM/sim.ld" -Wl,--gc-sections -o "$elf.tmp" \
		"$SIM/start.S" "$src" -lgcc
	arm-none-eabi-nm "$elf.tmp" >"$OUT/$name.sym"
	mv "$elf.tmp" "$elf"
done
