# test_names: what a linker script rule cannot name is left out, not fatal. An archive in
# a folder whose name holds a space ("my libs/libhot.a") is planned and moved (only its
# base name enters the rule); a function whose input section name holds a question mark
# (".text.odd?name") is left out of every strategy with a note, and the others still
# move. GNU ld relinks with the fragments and verify finds every function where planned.
. tests/integration/lib.sh
W=$XB_WORK
S=$(pwd)/tests/data/names

if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	echo "ok 1 # SKIP arm-none-eabi-gcc or jq not installed"
	exit 0
fi
CF="-mcpu=cortex-m0plus -mthumb -Os -ffunction-sections -ffreestanding -nostdlib"
mkdir -p "$W/my libs" "$W/stock" "$W/link"
printf '__xipbench_hot_start = .;\n__xipbench_hot_end = .;\n' >"$W/stock/xipbench_hot.ld"
printf '__xipbench_ramfunc_start = .;\n__xipbench_ramfunc_end = .;\n' >"$W/stock/xipbench_ramfunc.ld"
# shellcheck disable=SC2086
arm-none-eabi-gcc $CF -c "$S/lib.c" -o "$W/my libs/lib.o" &&
	arm-none-eabi-ar rcs "$W/my libs/libhot.a" "$W/my libs/lib.o" &&
	arm-none-eabi-gcc $CF -c "$S/main.c" -o "$W/main.o" || { not_ok "compile"; exit 1; }
link() { # OUT DIR
	# shellcheck disable=SC2086
	(cd "$W/link" && arm-none-eabi-gcc $CF -T "$S/names.ld" -L "$2" -L "$W/stock" \
		-Wl,-Map="${1%.elf}.map" -o "$1" "$W/main.o" "$W/my libs/libhot.a")
}
check "the stock image links" link "$W/fw.elf" "$W/stock"
grep -q "my libs/libhot.a(lib.o)" "$W/fw.map" && ok "the map names the archive with its folder" ||
	not_ok "the map does not show 'my libs/libhot.a(lib.o)'"
{
	echo "busy-seconds 1"
	arm-none-eabi-nm -S "$W/fw.elf" | awk '$4 == "lib_hot" || $4 == "lib_warm" || $4 == "odd" { print $1, $2 }' |
		while read -r a s; do
			a=$((0x$a)); s=$((0x$s)); o=0
			while [ $o -lt "$s" ]; do printf '0x%x\n0x%x\n' $((a + o)) $((a + o)); o=$((o + 2)); done
		done
} >"$W/samples.txt"
for s in hot colour sram names; do
	check "plan $s succeeds" "$XIPBENCH" plan --elf "$W/fw.elf" --samples "$W/samples.txt" \
		--strategy $s --sram-budget 1024 --out "$W/$s" --json
	cp "$W/last.out" "$W/$s.json"
	jq -e '.sram_refused[] | select(.function == "odd") | .reason | test("linker script rule")' \
		"$W/$s.json" >/dev/null && ok "$s: odd is left out with a note" ||
		not_ok "$s: no note for odd"
	if [ $s != names ]; then # (names sends only SRAM-worthy code: these are too small)
		grep -Eq "^(hot|colour|sram) lib_hot( |\$)" "$W/$s/layout.txt" &&
			ok "$s: lib_hot (folder with a space) is placed" || not_ok "$s: lib_hot is not placed"
	fi
	! grep -Eq "^[a-z]+ odd( |\$)" "$W/$s/layout.txt" && ok "$s: odd is not in the layout" ||
		not_ok "$s: odd is in the layout"
	check "$s: GNU ld relinks with the fragments" link "$W/$s/fw.elf" "$W/$s"
	check "$s: every function where the plan put it" "$XIPBENCH" verify --elf "$W/fw.elf" \
		--layout "$W/$s" --built "$W/$s/fw.elf"
done
finish
