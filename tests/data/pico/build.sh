#!/bin/sh
# build.sh: builds the virtual Pico test programs (tests/data/pico/*.c but rt.c and mkuf2.c)
# with arm-none-eabi-gcc, each linked with the shared runtime rt.c.
#   sh tests/data/pico/build.sh OUT
# For each NAME.c: OUT/NAME.elf, OUT/NAME.bin (flash from 0x10000000) and OUT/NAME.uf2
# (made by mkuf2.c, built with the host compiler). Rebuilds only what is older than its
# sources; the output depends only on the sources.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build.sh OUT}
mkdir -p "$OUT"
CC=arm-none-eabi-gcc
FLAGS="-mcpu=cortex-m0plus -mthumb -O2 -g -ffreestanding -nostdlib -ffunction-sections -Wall"
MKUF2="$OUT/mkuf2"
if [ ! -x "$MKUF2" ] || [ "$MKUF2" -ot "$HERE/mkuf2.c" ]; then
	${HOSTCC:-cc} -O2 -o "$MKUF2.tmp" "$HERE/mkuf2.c"
	mv "$MKUF2.tmp" "$MKUF2"
fi
for src in "$HERE"/*.c; do
	name=$(basename "$src" .c)
	case $name in rt | mkuf2) continue ;; esac
	elf="$OUT/$name.elf"
	if [ -f "$elf" ] && [ "$elf" -nt "$src" ] && [ "$elf" -nt "$HERE/rt.c" ] &&
		[ "$elf" -nt "$HERE/rt.h" ] && [ "$elf" -nt "$HERE/pico.ld" ] &&
		[ "$elf" -nt "$MKUF2" ]; then
		continue
	fi
	# shellcheck disable=SC2086
	$CC $FLAGS -I"$HERE" -T "$HERE/pico.ld" -Wl,--gc-sections -o "$elf.tmp" \
		"$HERE/rt.c" "$src" -lgcc
	arm-none-eabi-objcopy -O binary "$elf.tmp" "$OUT/$name.bin"
	"$MKUF2" "$OUT/$name.bin" 0x10000000 "$OUT/$name.uf2"
	mv "$elf.tmp" "$elf"
done
