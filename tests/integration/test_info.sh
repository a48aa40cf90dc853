#!/bin/sh
# test_info: `xipbench info` on the test firmware, checked against arm-none-eabi-nm and
# arm-none-eabi-readelf: every function symbol, the sections, static name collisions,
# aliases, clone suffixes, libraries; maps of other builds and corrupt ELFs rejected.
. tests/integration/lib.sh

FX=$XB_WORK/fx
ELF=$FX/fw.elf
MAP=$FX/fw.map
J=$XB_WORK/info.json

if ! sh tests/data/build-fixture.sh "$FX" >"$XB_WORK/build.log" 2>&1; then
	not_ok "the test firmware builds"
	sed 's/^/# /' "$XB_WORK/build.log" | tail -n 20
	finish
	exit 1
fi
ok "the test firmware builds"

check "info --json runs" sh -c '"$1" info --json "$2" --map "$3" >"$4"' - "$XIPBENCH" "$ELF" "$MAP" "$J"
check "the output is JSON" jq -e . "$J"

# "ADDR SIZE NAME" in decimal, sorted, for the FUNC symbols readelf lists (Thumb bit cleared)
arm-none-eabi-readelf -sW "$ELF" | awk '$4 == "FUNC" && $7 != "UND" { print $2, $3, $8 }' |
	while read -r value size name; do
		case $size in 0x*) size=$((size)) ;; esac
		echo "$(($(printf '%d' "0x$value") & ~1)) $size $name"
	done | sort >"$XB_WORK/readelf.funcs"
jq -r '.functions[] | "\(.addr) \(.size) \(.name)"' "$J" | sort >"$XB_WORK/info.funcs"
check "every function symbol has readelf's address and size" \
	cmp "$XB_WORK/readelf.funcs" "$XB_WORK/info.funcs"
n=$(wc -l <"$XB_WORK/info.funcs")
check "the firmware has at least 150 functions ($n)" test "$n" -ge 150
bytes=$(jq '.totals.bytes' "$J")
check "the firmware has at least 24 KB of code ($bytes bytes)" test "$bytes" -ge 24576

# nm -S: every function we list is there with the same address and size (nm prints no size
# for size-0 symbols)
arm-none-eabi-nm -S --defined-only "$ELF" | awk 'NF == 4 { print $1, $2, $4 } NF == 3 { print $1, "0", $3 }' |
	while read -r addr size name; do
		echo "$(printf '%d' "0x$addr") $(printf '%d' "0x$size") $name"
	done | sort >"$XB_WORK/nm.syms"
check "nm agrees on every function's address and size" \
	sh -c 'test -z "$(comm -23 "$1" "$2")"' - "$XB_WORK/info.funcs" "$XB_WORK/nm.syms"

# sections: name, address and size as readelf -S shows them
arm-none-eabi-readelf -SW "$ELF" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '$1 != "NULL" { print $1, $3, $5 }' |
	while read -r name addr size; do
		echo "$name $(printf '%d' "0x$addr") $(printf '%d' "0x$size")"
	done >"$XB_WORK/readelf.secs"
jq -r '.sections[] | "\(.name) \(.addr) \(.size)"' "$J" >"$XB_WORK/info.secs"
check "sections match readelf -S" cmp "$XB_WORK/readelf.secs" "$XB_WORK/info.secs"
check "every function lies in its output section" jq -e '
	. as $r | [.functions[] | . as $f | ($r.sections[] | select(.name == $f.output_section)) as $s
	| ($f.addr >= $s.addr and $f.addr + $f.size <= $s.addr + $s.size)] | all' "$J"
check "text functions are in flash, in .text" jq -e '
	[.functions[] | select(.output_section == ".text") | .region == "flash"] | all' "$J"

# static functions with one name in two archives
check "both static helpers are listed, with different qualified names" jq -e '
	[.functions[] | select(.name == "helper")] | length == 2
	and (map(.qualified_name) | sort == ["libnet.a:net_if.o(.text.helper)",
					     "libusb.a:control.o(.text.helper)"])
	and (map(.same_name) == [2, 2]) and (map(.local) == [true, true])
	and (map(.library) | sort == ["net", "usb"])' "$J"

check "the alias is reported" jq -e '
	[.functions[] | select(.name == "net_chksum_impl")][0].alias_of == "net_calc_chksum"
	and ([.functions[] | select(.name == "net_calc_chksum")][0].alias_of == null)' "$J"

check "clone suffixes are split" jq -e '
	([.functions[] | select(.name == "header_ok.isra.0")][0] | .base_name == "header_ok"
	  and .suffix == ".isra.0")
	and ([.functions[] | select(.name == "header_sum.constprop.0")][0].base_name == "header_sum")
	and ([.functions[] | select(.name == "route_lookup.part.0.constprop.0")][0]
	  | .base_name == "route_lookup" and .suffix == ".part.0.constprop.0")
	and ([.functions[] | .base_name + .suffix == .name] | all)' "$J"

check "archive functions get their library" jq -e '
	def lib_of($a): [.functions[] | select(.archive != null and (.archive | endswith($a)))
			 | .library] | unique;
	lib_of("/libnet.a") == ["net"] and lib_of("/libusb.a") == ["usb"]
	and lib_of("/libkernel.a") == ["kernel"] and lib_of("/libdrivers.a") == ["drivers"]
	and lib_of("/libgcc.a") == ["libgcc"]
	and ([.functions[] | select(.archive == null) | .library] | unique == ["app"])' "$J"
check "libraries get their display groups" jq -e '
	[.libraries[] | select(.name == "net")][0].group == "IP stack"
	and [.libraries[] | select(.name == "kernel")][0].group == "kernel"
	and ([.groups[].name] | index("USB device stack") != null)' "$J"
check "input sections and alignments come from the map and the objects" jq -e '
	[.functions[] | select(.name == "net_chksum_impl")][0]
	| .input_section == ".text.net_chksum_impl" and .input_align == 16
	  and .input_align_known == true and .member == "chksum.o"' "$J"
check "marker symbols are listed" jq -e '[.markers[].name] | index("__xipbench_hot_start") != null' "$J"

# the human form, with the map found next to the ELF
check "info without --json prints the tables" sh -c '
	"$1" info "$2" >"$3" && grep -q "^IP stack " "$3" && grep -q "^net  *IP stack" "$3" &&
	grep -q "libnet.a:net_if.o(.text.helper)" "$3"' - "$XIPBENCH" "$ELF" "$XB_WORK/info.txt"

# without a map, libraries come from the source file names of static functions
mkdir -p "$XB_WORK/nomap" && cp "$ELF" "$XB_WORK/nomap/fw.elf"
check "info without a map names libraries after source files" sh -c '
	"$1" info --json "$2" | jq -e ".map == null and
		([.functions[] | select(.name == \"header_ok.isra.0\")][0].library == \"file:ipv4.c\")"' \
	- "$XIPBENCH" "$XB_WORK/nomap/fw.elf"

# a relink with a layout folder moves a function; its map no longer fits the stock ELF
L=$XB_WORK/layout
mkdir -p "$L"
printf '__xipbench_hot_start = .;\n*(.text.ipv4_input)\n. = . + 64;\n__xipbench_hot_end = .;\n' >"$L/xipbench_hot.ld"
printf '__xipbench_ramfunc_start = .;\n__xipbench_ramfunc_end = .;\n' >"$L/xipbench_ramfunc.ld"
check "the fixture relinks with a layout folder" sh tests/data/build-fixture.sh --relink "$FX" "$L" "$XB_WORK/moved.elf"
check "the relinked ELF puts the listed function first" sh -c '
	"$1" info --json "$2" --map "$3" | jq -e "
		([.markers[] | select(.name == \"__xipbench_hot_start\")][0].addr) as \$h
		| [.functions[] | select(.name == \"ipv4_input\")][0].addr == \$h"' \
	- "$XIPBENCH" "$XB_WORK/moved.elf" "$XB_WORK/moved.map"
check_fails "a map from another build is rejected" "moved.map does not belong to .*fw.elf" \
	"$XIPBENCH" info "$ELF" --map "$XB_WORK/moved.map"
L2=$XB_WORK/layout2
mkdir -p "$L2"
printf '__xipbench_hot_start = .;\n*(.text.k_yield)\n__xipbench_hot_end = .;\n' >"$L2/xipbench_hot.ld"
cp "$L/xipbench_ramfunc.ld" "$L2/"
sh tests/data/build-fixture.sh --relink "$FX" "$L2" "$XB_WORK/moved2.elf" >/dev/null 2>&1
check_fails "a map whose functions moved is rejected" "moved2.map does not belong to" \
	"$XIPBENCH" info "$ELF" --map "$XB_WORK/moved2.map"

# bad ELF files: exit 1 (not a signal), with the file and the problem
head -c 3000 "$ELF" >"$XB_WORK/trunc.elf"
printf 'garbage\n' >"$XB_WORK/junk.elf"
: >"$XB_WORK/empty.elf"
arm-none-eabi-strip -o "$XB_WORK/stripped.elf" "$ELF"
check_fails "a truncated ELF is rejected" "trunc.elf: truncated" "$XIPBENCH" info "$XB_WORK/trunc.elf"
check_fails "a non-ELF file is rejected" "junk.elf: not an ELF" "$XIPBENCH" info "$XB_WORK/junk.elf"
check_fails "an empty file is rejected" "empty.elf: empty" "$XIPBENCH" info "$XB_WORK/empty.elf"
check_fails "a 64-bit host ELF is rejected" "64-bit" "$XIPBENCH" info "$XIPBENCH"
check_fails "a stripped ELF is rejected" "stripped.elf: no symbol table" "$XIPBENCH" info "$XB_WORK/stripped.elf"
check_fails "a missing ELF is rejected" "nothing.elf" "$XIPBENCH" info "$XB_WORK/nothing.elf"
check_fails "a missing map is rejected" "nothing.map" "$XIPBENCH" info "$ELF" --map "$XB_WORK/nothing.map"
check_fails "a garbage map is rejected" "junk.elf: not a GNU ld map" "$XIPBENCH" info "$ELF" --map "$XB_WORK/junk.elf"
"$XIPBENCH" info "$XB_WORK/junk.elf" >/dev/null 2>&1
rc=$?
if [ $rc -eq 1 ]; then ok "bad input exits with status 1"; else not_ok "bad input exits with status 1 (got $rc)"; fi
"$XIPBENCH" info >/dev/null 2>&1
rc=$?
if [ $rc -eq 2 ]; then ok "a missing argument is a usage error"; else not_ok "a missing argument is a usage error (got $rc)"; fi

# the same sources give the same ELF
if sh tests/data/build-fixture.sh "$XB_WORK/fx2" >/dev/null 2>&1 && cmp -s "$ELF" "$XB_WORK/fx2/fw.elf"; then
	ok "the fixture build is deterministic"
else
	not_ok "the fixture build is deterministic"
fi

# LTO: privatised statics get .lto_priv.N
if VARIANT=lto sh tests/data/build-fixture.sh "$XB_WORK/lto" >"$XB_WORK/lto.log" 2>&1; then
	check "LTO build: statics with one name become .lto_priv.N, split to one base name" sh -c '
		"$1" info --json "$2" | jq -e "[.functions[] | select(.base_name == \"helper\")]
			| length == 2 and all(.suffix | test(\"^[.]lto_priv[.][0-9]+$\"))"' \
		- "$XIPBENCH" "$XB_WORK/lto/fw.elf"
else
	not_ok "the LTO variant builds"
	sed 's/^/# /' "$XB_WORK/lto.log" | tail -n 10
fi

finish
