#!/bin/sh
# build-fixture.sh: builds the xipbench test firmware (a small USB CDC-ECM network device
# for a Cortex-M0+) with arm-none-eabi-gcc, as static archives plus application objects,
# and links it with a GNU ld map file.
#
#   sh tests/data/build-fixture.sh OUT
#       compiles into OUT/obj, makes OUT/libnet.a OUT/libkernel.a OUT/libusb.a
#       OUT/libdrivers.a, writes the stock fragments OUT/stock/xipbench_hot.ld and
#       OUT/stock/xipbench_ramfunc.ld, links OUT/fw.elf and OUT/fw.map.
#   sh tests/data/build-fixture.sh --relink OUT LAYOUT_DIR NEW.elf
#       links the same objects again with LAYOUT_DIR's fragments (searched before the
#       stock ones), writing NEW.elf and NEW.map.
#   VARIANT=lto sh tests/data/build-fixture.sh OUT
#       the same with -flto (static functions then carry .lto_priv.N suffixes).
#
# The output depends only on the sources: the same inputs give the same fw.elf.
set -eu

die() {
	echo "build-fixture.sh: $*" >&2
	exit 1
}

HERE=$(cd "$(dirname "$0")" && pwd)
FW=$HERE/fw
ARCH="-mcpu=cortex-m0plus -mthumb"
CFLAGS_BASE="$ARCH -Os -ffunction-sections -fdata-sections -ffreestanding -nostdlib -Wall -I$FW/include"
CC=arm-none-eabi-gcc

abs_dir() { (cd "$1" && pwd); }

# Prints the absolute form of a file path whose folder exists.
abs_file() {
	d=$(dirname "$1")
	[ -d "$d" ] || die "$d: no such folder"
	echo "$(abs_dir "$d")/$(basename "$1")"
}

# The one link command, shared by builds and relinks. ld looks for INCLUDEd files in the
# current folder before the -L folders, so it runs in an empty folder.
link() { # ELF MAP [LAYOUT_DIR]
	lpaths=""
	if [ -n "${3:-}" ]; then lpaths="-L $3"; fi
	lpaths="$lpaths -L $OUT/stock"
	mkdir -p "$OUT/.link"
	# shellcheck disable=SC2086
	(cd "$OUT/.link" && $CC $ARCH $LTO -Os -ffunction-sections -fdata-sections -nostdlib \
		-T "$FW/fw.ld" $lpaths \
		-Wl,-Map="$2" -Wl,--gc-sections -o "$1" \
		"$OUT/obj/app/boot2.o" "$OUT/obj/app/vectors.o" "$OUT/obj/app/main.o" \
		"$OUT/obj/app/string.o" "$OUT/obj/app/app_gen.o" \
		-Wl,--start-group "$OUT/libnet.a" "$OUT/libusb.a" "$OUT/libdrivers.a" \
		"$OUT/libkernel.a" -Wl,--end-group -lgcc) || die "link of $1 failed"
}

compile() { # LIB SOURCE [EXTRA_FLAGS]
	o="$OUT/obj/$1/$(basename "$2" .c).o"
	# shellcheck disable=SC2086
	$CC $CFLAGS_BASE $LTO ${3:-} -c "$2" -o "$o" || die "compiling $2 failed"
}

# LIB COUNT SEED: generated filler functions of one library.
generate() {
	awk -v lib="$1" -v count="$2" -v seed="$3" -f "$HERE/gen-filler.awk" >"$OUT/gen/$1_gen.c"
	compile "$1" "$OUT/gen/$1_gen.c"
}

archive() { # NAME OBJECTS...
	name=$1
	shift
	rm -f "$OUT/lib$name.a"
	$AR rcsD "$OUT/lib$name.a" "$@" || die "ar of lib$name.a failed"
}

if [ "${1:-}" = "--relink" ]; then
	[ $# -eq 4 ] || die "usage: build-fixture.sh --relink OUT LAYOUT_DIR NEW.elf"
	[ -f "$2/fw.elf" ] && [ -f "$2/build.env" ] || die "$2: not a fixture build folder"
	OUT=$(abs_dir "$2")
	[ -d "$3" ] || die "$3: no such layout folder"
	layout=$(abs_dir "$3")
	elf=$(abs_file "$4")
	case "$elf" in
	*.elf) map="${elf%.elf}.map" ;;
	*) map="$elf.map" ;;
	esac
	. "$OUT/build.env"
	LTO=""
	[ "$VARIANT" = lto ] && LTO="-flto"
	link "$elf" "$map" "$layout"
	exit 0
fi

[ $# -eq 1 ] || die "usage: build-fixture.sh OUT | --relink OUT LAYOUT_DIR NEW.elf"
command -v $CC >/dev/null 2>&1 || die "$CC not found (Debian: gcc-arm-none-eabi)"
mkdir -p "$1"
OUT=$(abs_dir "$1")
VARIANT=${VARIANT:-stock}
case "$VARIANT" in
stock) LTO="" AR=arm-none-eabi-ar ;;
lto) LTO="-flto" AR=arm-none-eabi-gcc-ar ;;
*) die "VARIANT must be lto or empty, not '$VARIANT'" ;;
esac

rm -rf "$OUT/obj" "$OUT/gen" "$OUT/stock" "$OUT/.link"
mkdir -p "$OUT/obj/app" "$OUT/obj/kernel" "$OUT/obj/drivers" "$OUT/obj/net" "$OUT/obj/usb" \
	"$OUT/gen" "$OUT/stock"
printf '__xipbench_hot_start = .;\n__xipbench_hot_end = .;\n' >"$OUT/stock/xipbench_hot.ld"
printf '__xipbench_ramfunc_start = .;\n__xipbench_ramfunc_end = .;\n' >"$OUT/stock/xipbench_ramfunc.ld"
printf '__xipbench_noalloc_start = .;\n__xipbench_noalloc_end = .;\n' >"$OUT/stock/xipbench_noalloc.ld"
echo "VARIANT=$VARIANT" >"$OUT/build.env"

for f in boot2 vectors string main; do compile app "$FW/app/$f.c"; done
for f in sched sem timeout work; do compile kernel "$FW/kernel/$f.c"; done
for f in usb_dc timer; do compile drivers "$FW/drivers/$f.c"; done
for f in net_buf chksum net_if ethernet arp icmp udp; do compile net "$FW/net/$f.c"; done
compile net "$FW/net/ipv4.c" -O2
for f in descriptors control cdc_ecm; do compile usb "$FW/usb/$f.c"; done
generate app 12 101
generate kernel 24 202
generate drivers 16 303
generate net 34 404
generate usb 24 505

archive kernel "$OUT"/obj/kernel/*.o
archive drivers "$OUT"/obj/drivers/*.o
archive net "$OUT"/obj/net/*.o
archive usb "$OUT"/obj/usb/*.o

link "$OUT/fw.elf" "$OUT/fw.map"
