#!/bin/sh
# The most complete demo xipbench has today (`make run`): a firmware-like image built with
# arm-none-eabi-gcc, its functions by library, layouts planned from a synthetic fetch trace,
# each relinked by GNU ld and checked, and the predicted misses per echo side by side.
# Every miss figure below is a prediction from a synthetic trace, i.e. a model.
set -eu
BUILD=${1:-build}
XB="$BUILD/xipbench"
W=${XIPBENCH_DEMO_DIR:-$BUILD/demo}
rm -rf "$W"
mkdir -p "$W"

say() { printf '\n== %s\n' "$*"; }

say "building a firmware-like image (tests/data/fw) with arm-none-eabi-gcc and GNU ld"
sh tests/data/build-fixture.sh "$W/fw" >"$W/build.log" 2>&1 || { cat "$W/build.log"; exit 1; }
arm-none-eabi-size "$W/fw/fw.elf"

say "xipbench info: functions by library"
"$XB" info "$W/fw/fw.elf" --map "$W/fw/fw.map" | sed -n '1,/^total/p'

say "a synthetic fetch trace: 40 echoes over a random call path through every function
(a model, not a measurement)"
arm-none-eabi-nm -S -n --defined-only "$W/fw/fw.elf" |
	awk -v echoes=40 -v frac=1.0 -v seed=3 -f scripts/synth-trace.awk >"$W/trace.txt"
"$XB" cache --target rp2040 --trace "$W/trace.txt"

num() { sed -n "s/.*\"$2\": *\([-0-9.e+]*\).*/\1/p" "$1" | head -n 1; }

say "plan, relink with GNU ld, check every address"
printf '%-18s %12s %10s %10s %10s  %s\n' layout "misses/echo" "OPT bound" "extra RAM" padding "relinked"
row() { # name strategy sram-budget
	L="$W/$(echo "$1" | tr " " "-")"
	"$XB" plan --elf "$W/fw/fw.elf" --trace "$W/trace.txt" --strategy "$2" \
		--sram-budget "$3" --out "$L" --json >"$L.json"
	sh tests/data/build-fixture.sh --relink "$W/fw" "$L" "$L/fw.elf" >"$L.log" 2>&1
	arm-none-eabi-readelf -sW "$L/fw.elf" | awk -f tests/integration/funcs.awk |
		awk '{ print $1, $3 }' | sed 's/ [^ ]*:/ /' | sort >"$L/actual.addr"
	grep -v '^#' "$L/addresses.txt" | sed 's/^0x//' | sort >"$L/pred.addr"
	if cmp -s "$L/pred.addr" "$L/actual.addr"; then chk="all addresses as predicted"; else chk="ADDRESSES DIFFER"; fi
	printf '%-18s %12s %10s %10s %10s  %s\n' "$1" "$(num "$L.json" predicted_misses_per_echo)" \
		"$(num "$L.json" opt_bound_misses_per_echo)" "$(num "$L.json" extra_ram_bytes)" \
		"$(num "$L.json" pad_bytes)" "$chk"
	[ "$1" = hot ] && STOCK=$(num "$L.json" stock_misses_per_echo) || true
}
row hot hot 0
printf '%-18s %12s\n' stock "$STOCK"
row colour colour 0
row "sram 2 KB" sram 2048
row "sram 4 KB" sram 4096
row "names 4 KB" names 4096

cat <<MSG

Every figure above is predicted by replaying a synthetic trace through the rp2040 target's
cache model; nothing here ran on a board. The virtual Pico (emulator, USB controller and
host, SWD port and CMSIS-DAP probe) exists; measuring real echoes on it and the
interactive workbench are not built yet. Files are in $W.
MSG
