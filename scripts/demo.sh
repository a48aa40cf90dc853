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

say "the demo echo firmware on the virtual Pico: 30 pings at 20 ms, measured"
make -s -C firmware >"$W/firmware.log" 2>&1 || { cat "$W/firmware.log"; exit 1; }
E=firmware/build/echo.elf
arm-none-eabi-size "$E"
"$XB" sim run --elf "$E" --ping 30 --interval-ms 20 --trace "$W/echo.trace" --json >"$W/stock-run.json"
jq -r '.ping | "turnaround median \(.turnaround_ms.median) ms, misses per echo \(.misses_per_echo) (measured: XIP counters over 30 echoes minus an idle window)"' "$W/stock-run.json"

say "plan from the measured fetch trace, relink the firmware with GNU ld, run it again"
printf '%-10s %16s %16s %12s %16s %10s\n' layout "predicted m/e" "measured m/e" "OPT bound" "turnaround ms" "extra RAM"
for spec in hot:hot:0 colour:colour:0 sram-4k:sram:4096; do
	s=${spec%%:*}
	rest=${spec#*:}
	L="$W/echo-$s"
	"$XB" plan --elf "$E" --trace "$W/echo.trace" --strategy "${rest%%:*}" \
		--sram-budget "${rest#*:}" --out "$L" --json >"$L.json"
	make -s -C firmware LAYOUT="$(cd "$L" && pwd)" >"$L.log" 2>&1 || { cat "$L.log"; exit 1; }
	"$XB" sim run --elf "firmware/build/default/layouts/echo-$s/echo.elf" --ping 30 \
		--interval-ms 20 --json >"$L-run.json"
	[ $s = hot ] && printf '%-10s %16s %16s %12s %16s %10s\n' stock "$(num "$L.json" stock_misses_per_echo)" \
		"$(jq -r .ping.misses_per_echo "$W/stock-run.json")" "$(num "$L.json" stock_opt_bound_misses_per_echo)" \
		"$(jq -r .ping.turnaround_ms.median "$W/stock-run.json")" 0
	printf '%-10s %16s %16s %12s %16s %10s\n' $s "$(num "$L.json" predicted_misses_per_echo)" \
		"$(jq -r .ping.misses_per_echo "$L-run.json")" "$(num "$L.json" opt_bound_misses_per_echo)" \
		"$(jq -r .ping.turnaround_ms.median "$L-run.json")" "$(num "$L.json" extra_ram_bytes)"
done

cat <<MSG

The first table is predicted from a synthetic trace (a model). The echo firmware's figures
were measured on the virtual Pico (its XIP counters; turnaround from the virtual USB host),
beside the planner's prediction from the trace of the stock run. Not built yet: the full
study (xipbench experiment: SRAM budgets, LTO, UDP echo rates, the seed's tables) and the
interactive workbench. Files are in $W.
MSG
