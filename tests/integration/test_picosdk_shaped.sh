# test_picosdk_shaped: xipbench on a pico-sdk build folder. The pico-sdk-shaped project of
# tests/data/picosdk-app (an SDK tree with pico-sdk's CMake structure, memmap_default.ld,
# crt0.S with a size-0 assembly reset handler that walks data_cpy_table and calls
# runtime_init, boot2, TinyUSB and lwIP trees; an application with sources in a subfolder,
# a __not_in_flash_func function calling flash code (veneers) and an absolute FUNC symbol)
# is copied into a folder whose path holds a space and built with cmake and ninja for
# PICO_BOARD=pico. Then: info, the one-time `integrate` step checked with GNU ld, and for
# every strategy plan, predict, the relink command xipbench gives, every function at its
# predicted address (nm, independently of xipbench) and `xipbench verify`.
. tests/integration/lib.sh

for t in arm-none-eabi-gcc arm-none-eabi-readelf cmake ninja jq; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "ok 1 # SKIP $t not installed"
		exit 0
	fi
done
W="$XB_WORK/pico work"
mkdir -p "$W"
cp -R tests/data/picosdk-app/. "$W/"
B="$W/build"
ELF="$B/net_motor.elf"

# 1. the build
check "cmake configures and builds the pico-sdk-shaped project (path with a space)" \
	sh -c 'cmake -G Ninja -S "$1/app" -B "$1/build" -DPICO_SDK_PATH="$1/pico-sdk" -DPICO_BOARD=pico &&
		cmake --build "$1/build"' sh "$W"
if [ ! -f "$ELF" ] || [ ! -f "$ELF.map" ]; then
	not_ok "no net_motor.elf and net_motor.elf.map to work on"
	finish
	exit
fi
# what the project must have, seen by GNU binutils
arm-none-eabi-readelf -sW "$ELF" >"$W/syms.txt"
expect "readelf: _reset_handler is a FUNC of size 0, rom_crc32_alias an absolute FUNC" "$W/syms.txt" \
	" 0 FUNC +LOCAL +DEFAULT +[0-9]+ _reset_handler$" "FUNC +GLOBAL +DEFAULT +ABS rom_crc32_alias$"
expect "readelf: veneers between the SRAM function and flash, both ways" "$W/syms.txt" \
	"^ *[0-9]+: 2[0-9a-f]{7} .* __lwip_standard_chksum_veneer$" "^ *[0-9]+: 1[0-9a-f]{7} .* __ram_fast_sum_veneer$"
expect "map: CMake object paths (app, subfolder, SDK), libgcc.a, crt objects, boot2" "$ELF.map" \
	"CMakeFiles/net_motor\.dir/src/motor/motor\.c\.o" "CMakeFiles/net_motor\.dir/.*/pico-sdk/src/rp2_common/pico_crt0/crt0\.S\.o" \
	"libgcc\.a\(" "crtbegin\.o" "bs2_default_padded_checksummed\.S\.o" "^\.boot2 " "^\.flash_begin "

# 2. info
check "info --pico-sdk BUILD" "$XIPBENCH" info --pico-sdk "$B" --json
cp "$XB_WORK/last.out" "$W/info.json"
code=$(awk '$4 == "FUNC" && $7 != "ABS" && $7 != "UND"' "$W/syms.txt" | wc -l)
n=$(jq '.functions | length' "$W/info.json")
[ "$n" = "$code" ] && ok "info counts the $code FUNC symbols with a section (not the absolute one)" ||
	not_ok "info counts $n functions, readelf has $code FUNC symbols with a section"
[ "$(jq -r .build.board "$W/info.json")" = pico ] && ok "board pico from CMakeCache.txt" ||
	not_ok "board: $(jq -r .build.board "$W/info.json")"
relink=$(jq -r .build.relink "$W/info.json")
[ "$relink" = "cmake --build '$B' --target 'net_motor'" ] && ok "relink: cmake --build the folder, target net_motor" ||
	not_ok "relink: $relink"
# the library of a function, and its group, as info names them
grp() { jq -r --arg f "$1" '(.functions[] | select(.name == $f) | .library) as $l |
	(.libraries[] | select(.name == $l) | "\(.name)=\(.group)")' "$W/info.json"; }
got=""
for f in gpio_init runtime_init_clocks tud_task_ext hw_endpoint_reset_transfer ip4_input main pid_update \
	__aeabi_uidiv memcpy frame_dummy; do
	got="$got $f:$(grp $f)"
done
want=" gpio_init:hardware_gpio=pico hardware runtime_init_clocks:pico_runtime_init=pico runtime"
want="$want tud_task_ext:tinyusb/device=USB device stack hw_endpoint_reset_transfer:tinyusb/portable=USB device driver"
want="$want ip4_input:lwip/core=IP stack main:app=app pid_update:app=app __aeabi_uidiv:libgcc=GCC runtime"
want="$want memcpy:libc=libc frame_dummy:crt=GCC runtime"
[ "$got" = "$want" ] && ok "libraries and groups name the layers (SDK, TinyUSB, lwIP, app with src/motor, runtimes)" ||
	not_ok "groups:$got (want$want)"

# before the one-time step: no hot block where ld would not put it, but the exact step
awk '$8 == "tud_task_ext" { print $2, $3 }' "$W/syms.txt" | { read -r a sz; echo "busy-seconds 1"
	o=0; while [ $o -lt $((sz)) ]; do printf '0x%x\n' $((0x$a + o)); o=$((o + 2)); done; } >"$W/pre.samples"
check_fails "plan hot before the one-time step is refused, naming it" "xipbench integrate --pico-sdk" \
	"$XIPBENCH" plan --pico-sdk "$B" --samples "$W/pre.samples" --strategy hot --out "$W/pre-plan"

# 3. the one-time step
check "integrate --pico-sdk BUILD" "$XIPBENCH" integrate --pico-sdk "$B"
cp "$XB_WORK/last.out" "$W/integrate.out"
X="$W/app/xipbench"
expect "integrate wrote the memmap and the stock fragments and prints the two CMake lines (quoted)" \
	"$W/integrate.out" "^    pico_set_linker_script\(net_motor \"$X/memmap_xipbench.ld\"\)$" \
	"^    target_link_options\(net_motor PRIVATE \"-L$X\"\)$"
[ -f "$X/memmap_xipbench.ld" ] && [ -f "$X/xipbench_hot.ld" ] && [ -f "$X/xipbench_ramfunc.ld" ] &&
	ok "the files are in APP/xipbench" || not_ok "APP/xipbench lacks a file: $(ls "$X" 2>&1)"
cp "$ELF" "$W/before.elf"
sed -n 's/^    \(pico_set_linker_script\|target_link_options\)/\1/p' "$W/integrate.out" >>"$W/app/CMakeLists.txt"
check "the build with memmap_xipbench.ld and the stock fragments links" cmake --build "$B"
arm-none-eabi-nm "$ELF" >"$W/nm-stock.txt"
# crt0 copies __etext.. to __data_start__..__data_end__: the end must still be in RAM
expect "the copy bounds are still .data's (in RAM) and the marker symbols are there" "$W/nm-stock.txt" \
	"^200[0-9a-f]{5} [A-Za-z] __data_end__$" "^2[0-9a-f]{7} T __xipbench_ramfunc_start$" \
	"^10[0-9a-f]{6} T __xipbench_hot_start$"
# every function keeps its region and RAM functions their address; the general text moves
# as one block (one offset), the rest of .text keeps its address, except _fini (.fini comes
# after the general rule in .text, so it moves up by the size of the general text); veneers
# excepted
funcs() { arm-none-eabi-readelf -sW "$1" | awk '$4 == "FUNC" && $7 != "ABS" && $7 != "UND" && $8 !~ /_veneer$/ { print $8, $2 }' | sort; }
funcs "$W/before.elf" >"$W/f-before.txt"
funcs "$ELF" >"$W/f-after.txt"
join "$W/f-before.txt" "$W/f-after.txt" | while read -r name a b; do
	echo "$name $(( (0x$b - 0x$a) )) $(( 0x$a >> 28 )) $(( 0x$b >> 28 ))"
done >"$W/moves.txt"
nfun=$(wc -l <"$W/f-before.txt")
same=$(wc -l <"$W/moves.txt")
block=$(awk '$2 != 0 { print $2 }' "$W/moves.txt" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
odd=$(awk -v d="$block" '$3 != $4 || ($3 == 2 && $2 != 0) || ($2 != 0 && $2 != d && $1 != "_fini")' "$W/moves.txt")
if [ "$same" -eq "$nfun" ] && [ -z "$odd" ] && [ -n "$block" ]; then
	ok "no function moved that should not ($nfun functions; the general text by $block bytes)"
else
	not_ok "functions moved otherwise: $same of $nfun matched; $(echo "$odd" | head -n 5 | tr '\n' ';')"
fi

# 4. every strategy, planned on the stock build of the integrated project
mkdir -p "$W/stock"
cp "$ELF" "$W/stock/net_motor.elf"
cp "$ELF.map" "$W/stock/net_motor.elf.map"
# samples and a trace on every halfword of the hot path and of the start-up path
S="$W/ping.samples"
echo "busy-seconds 1" >"$S"
for f in _reset_handler runtime_init runtime_run_initializers memcpy memset tud_task_ext dcd_event_handler \
	ethernet_input ip4_input udp_input icmp_input lwip_standard_chksum inet_chksum pbuf_alloc pbuf_free \
	pbuf_copy_partial net_glue_poll tud_network_recv_cb ram_fast_sum motor_step pid_update __aeabi_uidiv \
	hw_endpoint_reset_transfer __ram_fast_sum_veneer; do
	awk -v f="$f" '$8 == f { print $2, $3 }' "$W/syms.txt" | while read -r a s; do
		a=$((0x$a)); [ "$s" -eq 0 ] && s=32; o=0
		while [ $o -lt "$s" ]; do printf '0x%x\n' $((a + o)); o=$((o + 2)); done
	done
done >>"$S"
T="$W/ping.trace"
{ grep '^0x' "$S"; echo echo; grep '^0x' "$S"; echo echo; } >"$T"
relink=$("$XIPBENCH" info --pico-sdk "$B" --json | jq -r .build.relink)
STRATEGIES="hot colour sram names noalloc"
for st in $STRATEGIES; do
	P="$W/plan $st"
	check "plan --pico-sdk --strategy $st" "$XIPBENCH" plan --pico-sdk "$B" --samples "$S" --strategy $st --out "$P"
	cp "$XB_WORK/last.out" "$W/plan-$st.out"
	check "predict --pico-sdk --layout ($st)" "$XIPBENCH" predict --pico-sdk "$B" --layout "$P" --trace "$T"
done
# a sampled stock veneer is no rule (ld never matches rules against its stub sections)
! grep -q '_veneer' "$W/plan hot/layout.txt" && ! grep -q '__stub' "$W/plan hot/xipbench_hot.ld" &&
	grep -q '^# veneer 0x' "$W/plan hot/addresses.txt" &&
	ok "the sampled veneer is in no rule; the relink's veneers are modelled" ||
	not_ok "a veneer in the hot plan's rules, or none modelled"
expect "the sram plan keeps the start-up path in flash and says so" "$W/plan-sram.out" \
	"start-up path .*stay in flash: .*_reset_handler.*runtime_init"
for st in $STRATEGIES; do
	P="$W/plan $st"
	if [ ! -f "$P/addresses.txt" ]; then
		not_ok "$st: no plan to relink"
		continue
	fi
	# the relink command, {layout_dir} quoted for sh
	cmd=$(printf '%s' "$relink" | sed "s|{layout_dir}|'$P'|g")
	check "$st: the relink command xipbench gives links" sh -c "$cmd"
	cp "$ELF" "$P/built.elf"
	cp "$ELF.map" "$P/built.elf.map"
	arm-none-eabi-nm "$P/built.elf" | awk '$2 ~ /^[TtWw]$/ { print $3, $1 }' | sort -u >"$W/nm-$st.txt"
	bad=$(grep '^0x' "$P/addresses.txt" | while read -r a name; do
		got=$(awk -v n="$name" '$1 == n { print $2 }' "$W/nm-$st.txt" | head -n 1)
		[ -n "$got" ] && [ $((0x$got & ~1)) -eq $((a)) ] || echo "$name:$a:${got:-none}"
	done | head -n 5)
	nf=$(grep -c '^0x' "$P/addresses.txt")
	[ -z "$bad" ] && ok "$st: all $nf functions of addresses.txt are at their predicted address (nm)" ||
		not_ok "$st: functions not where predicted: $bad"
	check "$st: xipbench verify agrees" "$XIPBENCH" verify --elf "$W/stock/net_motor.elf" --layout "$P" \
		--built "$P/built.elf"
done
# the relinked sram image runs its start-up path from flash, the planned functions from SRAM
inflash=$(awk '($1 == "_reset_handler" || $1 == "runtime_init") && $2 ~ /^10/' "$W/nm-sram.txt" | wc -l)
nram=0
notram=""
for f in $(awk '$1 == "sram" { print $2 }' "$W/plan sram/layout.txt"); do
	nram=$((nram + 1))
	awk -v f="$f" '$1 == f && $2 ~ /^20/' "$W/nm-sram.txt" | grep -q . || notram="$notram $f"
done
[ "$inflash" -eq 2 ] && [ "$nram" -gt 0 ] && [ -z "$notram" ] &&
	ok "sram: _reset_handler and runtime_init in flash, the $nram planned functions in SRAM (nm)" ||
	not_ok "sram: start-up path in flash: $inflash of 2; not in SRAM:$notram"
finish
