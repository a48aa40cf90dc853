#!/bin/sh
# build.sh: builds the virtual Pico test programs (tests/data/sim/*.c) with arm-none-eabi-gcc.
#   sh tests/data/sim/build.sh OUT
# For each NAME.c: OUT/NAME.elf, OUT/NAME.bin (the flash image from 0x10000000, for
# board_load) and OUT/NAME.sym (arm-none-eabi-nm output). Rebuilds only what is older than
# its sources. The output depends only on the sources.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build.sh OUT}
mkdir -p "$OUT"
CC=arm-none-eabi-gcc
# No jump tables: a switch in SRAM code would read its table from flash.
FLAGS="-mcpu=cortex-m0plus -mthumb -O2 -g -ffreestanding -nostdlib -ffunction-sections \
	-fno-jump-tables -Wall"
for src in "$HERE"/*.c; do
	name=$(basename "$src" .c)
	elf="$OUT/$name.elf"
	if [ -f "$elf" ] && [ "$elf" -nt "$src" ] && [ "$elf" -nt "$HERE/start.S" ] &&
		[ "$elf" -nt "$HERE/sim.ld" ] && [ "$elf" -nt "$HERE/sim.h" ] &&
		[ "$elf" -nt "$HERE/build.sh" ]; then
		continue
	fi
	# shellcheck disable=SC2086
	$CC $FLAGS -I"$HERE" -T "$HERE/sim.ld" -Wl,--gc-sections -o "$elf.tmp" \
		"$HERE/start.S" "$src" -lgcc
	arm-none-eabi-objcopy -O binary "$elf.tmp" "$OUT/$name.bin"
	arm-none-eabi-nm "$elf.tmp" >"$OUT/$name.sym"
	mv "$elf.tmp" "$elf"
done
