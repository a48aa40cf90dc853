#!/bin/sh
# build.sh: builds the virtual Pico's test programs with arm-none-eabi-gcc, with the start-up
# code and linker script of this folder. Other test-program folders (dap, usb, netdev) call
# it with their own sources.
#   sh tests/data/sim/build.sh OUT [SRC_DIR [INCLUDE_DIR ...]]
# For each SRC_DIR/NAME.c (default: this folder): OUT/NAME.elf, OUT/NAME.bin (the flash image
# from 0x10000000, for board_load), OUT/NAME.sym (arm-none-eabi-nm) and OUT/NAME.dis
# (objdump -d, for instruction boundaries). Rebuilds only what is older than its sources,
# the headers of SRC_DIR and the INCLUDE_DIRs, or this script. The output depends only on
# the sources.
set -eu
SIM=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build.sh OUT [SRC_DIR [INCLUDE_DIR ...]]}
SRC=$(cd "${2:-$SIM}" && pwd)
[ $# -ge 2 ] && shift 2 || shift 1
INCLUDES="-I$SRC -I$SIM"
DEPS="$SIM/start.S $SIM/sim.ld $SIM/sim.h $SIM/build.sh $SRC/build.sh"
for d in "$@"; do
	INCLUDES="$INCLUDES -I$d"
	DEPS="$DEPS $(ls "$d"/*.h 2>/dev/null | tr '\n' ' ')"
done
DEPS="$DEPS $(ls "$SRC"/*.h 2>/dev/null | tr '\n' ' ')"
mkdir -p "$OUT"
CC=arm-none-eabi-gcc
# No jump tables: a switch in SRAM code would read its table from flash.
FLAGS="-mcpu=cortex-m0plus -mthumb -O2 -g -ffreestanding -nostdlib -ffunction-sections \
	-fno-jump-tables -Wall -Wextra"

fresh() { # ELF SRC: the ELF is newer than everything it is made from
	[ -f "$1" ] && [ "$1" -nt "$2" ] || return 1
	for dep in $DEPS; do
		[ "$1" -nt "$dep" ] || return 1
	done
}

for src in "$SRC"/*.c; do
	name=$(basename "$src" .c)
	elf="$OUT/$name.elf"
	fresh "$elf" "$src" && continue
	# shellcheck disable=SC2086
	$CC $FLAGS $INCLUDES -T "$SIM/sim.ld" -Wl,--gc-sections -o "$elf.tmp" \
		"$SIM/start.S" "$src" -lgcc
	arm-none-eabi-objcopy -O binary "$elf.tmp" "$OUT/$name.bin"
	arm-none-eabi-nm "$elf.tmp" >"$OUT/$name.sym"
	arm-none-eabi-objdump -d "$elf.tmp" >"$OUT/$name.dis"
	mv "$elf.tmp" "$elf"
done
