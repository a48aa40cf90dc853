# test_verify: `xipbench verify` on real GNU ld relinks of the fixture firmware (two static
# functions named helper): hot, colour, SRAM and name-list layouts verify clean; a layout
# edited after its relink, and a relink with another layout's fragments, fail naming the
# function; a no-allocate layout runs its functions at 0x11... (nm); usage errors exit 2. Oracle for the relinks: GNU ld through build-fixture.sh.
. tests/integration/lib.sh
W=$XB_WORK

if ! "$XIPBENCH" verify --help 2>/dev/null | grep -q "usage: xipbench verify"; then
	echo "ok 1 # SKIP xipbench verify is not registered in cli/cli.c"
	exit 0
fi
if ! command -v arm-none-eabi-gcc >/dev/null 2>&1; then
	echo "ok 1 # SKIP arm-none-eabi-gcc not installed"
	exit 0
fi
if ! sh tests/data/build-fixture.sh "$W/fw" >"$W/build.log" 2>&1; then
	not_ok "fixture builds"; cat "$W/build.log"; exit 1
fi
arm-none-eabi-nm -S -n --defined-only "$W/fw/fw.elf" |
	awk -v echoes=30 -v frac=0.7 -v seed=3 -f scripts/synth-trace.awk >"$W/trace.txt"

for s in hot colour sram names noalloc; do
	L=$W/$s
	check "plan $s" "$XIPBENCH" plan --elf "$W/fw/fw.elf" --trace "$W/trace.txt" --strategy $s \
		--sram-budget 4096 --out "$L"
	check "relink with the $s fragments" sh tests/data/build-fixture.sh --relink "$W/fw" "$L" "$L/fw.elf"
	check "$s: the relink verifies" "$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$L" --built "$L/fw.elf"
	expect "$s: the summary counts the functions where the plan put them" "$W/last.out" \
		"^$L/fw.elf: [0-9]+ functions where the plan put them: [0-9]+ in the hot block, [0-9]+ coloured, [0-9]+ in SRAM"
done
# the no-allocate layout: GNU ld ran its functions at 0x11..., loaded in flash (nm, readelf)
na=$(awk '/^noalloc / { print $2; exit }' "$W/noalloc/layout.txt")
if [ -n "$na" ] && arm-none-eabi-nm "$W/noalloc/fw.elf" | grep -Eq "^11[0-9a-f]{6} [Tt] $na\$" &&
	readelf -lW "$W/noalloc/fw.elf" | grep -Eq "LOAD +0x[0-9a-f]+ 0x11[0-9a-f]{6} 0x10[0-9a-f]{6}"; then
	ok "noalloc: $na runs at 0x11... and loads from flash (nm, readelf)"
else
	not_ok "noalloc: '$na' is not at 0x11... in the relink"
	arm-none-eabi-nm -n "$W/noalloc/fw.elf" | grep -i " $na\$" | sed 's/^/# /'
fi
grep -q "helper" "$W/colour/layout.txt" && ok "the colour layout moves a static helper" ||
	not_ok "the colour layout moves no static helper (the same-name case is not exercised)"

"$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$W/sram" --built "$W/sram/fw.elf" --json >"$W/ok.json"
if jq -e '.verified == true and .problems == [] and .sram > 0 and .placed == .functions' "$W/ok.json" >/dev/null; then
	ok "--json: verified, no problems, SRAM functions counted"
else
	not_ok "--json of a clean relink"; sed 's/^/# /' "$W/ok.json" | head -n 20
fi

# another layout's image: the colour relink is not the SRAM plan
check_fails "a relink with other fragments fails, naming an SRAM function" \
	"verification failed: .*\\(SRAM: expected 0x2" \
	"$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$W/sram" --built "$W/colour/fw.elf"

# the hot layout's first two entries swapped after the relink
E=$W/edited
mkdir -p "$E"
cp "$W/hot/"*.ld "$E/"
awk '/^hot / && n < 2 { held[n++] = $0; if (n == 2) { print held[1]; print held[0] } next } { print }' \
	"$W/hot/layout.txt" >"$E/layout.txt"
first=$(awk '/^hot / { print $2; exit }' "$W/hot/layout.txt")
first_re=$(printf '%s' "$first" | sed 's/[][().*+?^$|\\]/\\&/g')
check "(the edited layout differs)" sh -c "! cmp -s '$W/hot/layout.txt' '$E/layout.txt'"
check_fails "a layout edited after the relink fails, naming its first hot function" \
	"$first_re \\(hot: expected 0x1[0-9a-f]+, found 0x1" \
	"$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$E" --built "$W/hot/fw.elf"
"$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$E" --built "$W/hot/fw.elf" --json >"$W/bad.json"
rc=$?
if [ $rc -eq 1 ] && jq -e --arg f "$first" '.verified == false and
	any(.problems[]; .function == $f and .role == "hot" and .kind == "moved" and .expected != .found)' \
	"$W/bad.json" >/dev/null; then
	ok "--json names the moved hot function (exit 1)"
else
	not_ok "--json of a failed verification (exit $rc)"; sed 's/^/# /' "$W/bad.json" | head -n 20
fi

"$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$W/hot" >"$W/usage.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q -- "--elf, --layout and --built are required" "$W/usage.out"; then
	ok "--built is required (exit 2)"
else
	not_ok "a missing --built (exit $rc)"; sed 's/^/# /' "$W/usage.out"
fi
check_fails "a built image that does not exist" "nosuch.elf" \
	"$XIPBENCH" verify --elf "$W/fw/fw.elf" --layout "$W/hot" --built "$W/nosuch.elf"
finish
