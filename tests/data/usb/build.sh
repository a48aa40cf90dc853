#!/bin/sh
# build.sh: builds the USB device programs of the virtual Pico tests (tests/data/usb/*.c) with
# arm-none-eabi-gcc, using the start-up code and linker script of tests/data/sim.
#   sh tests/data/usb/build.sh OUT
# For each NAME.c: OUT/NAME.elf (what the tests load), OUT/NAME.sym (arm-none-eabi-nm).
# Rebuilds only what is older than its sources; the output depends only on the sources.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SIM="$HERE/../sim"
OUT=${1:?usage: build.sh OUT}
mkdir -p "$OUT"
CC=arm-none-eabi-gcc
FLAGS="-mcpu=cortex-m0plus -mthumb -O2 -g -ffreestanding -nostdlib -ffunction-sections \
	-fno-jump-tables -Wall -Wextra"
for src in "$HERE"/*.c; do
	name=$(basename "$src" .c)
	elf="$OUT/$name.elf"
	if [ -f "$elf" ] && [ "$elf" -nt "$src" ] && [ "$elf" -nt "$HERE/usbdev.h" ] &&
		[ "$elf" -nt "$SIM/start.S" ] && [ "$elf" -nt "$SIM/sim.ld" ] &&
		[ "$elf" -nt "$HERE/build.sh" ]; then
		continue
	fi
	# shellcheck disable=SC2086
	$CC $FLAGS -I"$HERE" -I"$SIM" -T "$SIM/sim.ld" -Wl,--gc-sections -o "$elf.tmp" \
		"$SIM/start.S" "$src" -lgcc
	arm-none-eabi-nm "$elf.tmp" >"$OUT/$name.sym"
	mv "$elf.tmp" "$elf"
done
