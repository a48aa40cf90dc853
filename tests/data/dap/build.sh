#!/bin/sh
# build.sh: builds the virtual probe's test programs (tests/data/dap/*.c) with
# arm-none-eabi-gcc, using the start-up code and linker script of tests/data/sim (read-only).
#   sh tests/data/dap/build.sh OUT
# For each NAME.c: OUT/NAME.elf, OUT/NAME.bin (the flash image from 0x10000000) and
# OUT/NAME.sym (arm-none-eabi-nm output) and OUT/NAME.dis (objdump -d, for instruction
# boundaries). Rebuilds only what is older than its sources.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SIM="$HERE/../sim"
OUT=${1:?usage: build.sh OUT}
mkdir -p "$OUT"
CC=arm-none-eabi-gcc
FLAGS="-mcpu=cortex-m0plus -mthumb -O2 -g -ffreestanding -nostdlib -ffunction-sections \
	-fno-jump-tables -Wall"
for src in "$HERE"/*.c; do
	name=$(basename "$src" .c)
	elf="$OUT/$name.elf"
	if [ -f "$elf" ] && [ "$elf" -nt "$src" ] && [ "$elf" -nt "$SIM/start.S" ] &&
		[ "$elf" -nt "$SIM/sim.ld" ] && [ "$elf" -nt "$SIM/sim.h" ] &&
		[ "$elf" -nt "$HERE/build.sh" ]; then
		continue
	fi
	# shellcheck disable=SC2086
	$CC $FLAGS -I"$SIM" -T "$SIM/sim.ld" -Wl,--gc-sections -o "$elf.tmp" \
		"$SIM/start.S" "$src" -lgcc
	arm-none-eabi-objcopy -O binary "$elf.tmp" "$OUT/$name.bin"
	arm-none-eabi-nm "$elf.tmp" >"$OUT/$name.sym"
	arm-none-eabi-objdump -d "$elf.tmp" >"$OUT/$name.dis"
	mv "$elf.tmp" "$elf"
done
