#!/bin/sh
# test_firmware: the demo echo firmware (firmware/). Every build variant builds without a
# warning and the variants coexist; relinking with a layout folder runs the link step alone
# and puts the listed functions first and in SRAM; the virtual Pico prints the boot banner;
# and tests/unit/test_firmware (the virtual USB host: enumeration, ARP, pings, UDP echoes)
# passes on the variants and on the relinked image.
. tests/integration/lib.sh

if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v arm-none-eabi-nm >/dev/null 2>&1; then
	echo "ok 1 # SKIP arm-none-eabi-gcc or binutils not installed"
	exit 0
fi
B=$XB_WORK/fw
JOBS=-j2

# build LOG ARGS...: make in firmware/ into $B, the output in LOG.
build() {
	log=$1
	shift
	make --no-print-directory $JOBS -C firmware BUILD_DIR="$B" "$@" >"$XB_WORK/$log" 2>&1
}
no_warnings() { ! grep -Ei 'warning|error' "$XB_WORK/$1"; }

check "the default variant builds" build default.log
check "  without warnings" no_warnings default.log
check "  build/echo.elf and build/echo.map are the default variant" sh -c "
	cmp -s '$B/echo.elf' '$B/default/echo.elf' && cmp -s '$B/echo.map' '$B/default/echo.map'"

for v in "LTO=1:lto" "OPT=-O2:O2" "XIP_CACHE=off:xip_off" "CSUM=asm:csum_asm" "MEMCPY=asm:memcpy_asm" \
	"LTO=1 CSUM=asm MEMCPY=asm:lto-csum_asm-memcpy_asm"; do
	args=${v%%:*}
	dir=${v##*:}
	# shellcheck disable=SC2086 # args holds several variables
	check "$args builds into build/$dir" build "$dir.log" $args
	check "  without warnings" no_warnings "$dir.log"
	check "  with its map" test -s "$B/$dir/echo.map"
done
check "the variants coexist (six images, all different)" sh -c "
	ls '$B'/*/echo.elf | wc -l | grep -qx 7 &&
	test \$(md5sum '$B'/*/echo.elf | cut -d' ' -f1 | sort -u | wc -l) -eq 7"
check_fails "a bad variable value is refused" "CSUM=neon is not one of" \
	make --no-print-directory -C firmware BUILD_DIR="$B" CSUM=neon

# The build variants really differ where they say they do.
sym() { arm-none-eabi-nm "$1" | awk -v n="$2" '$3 == n { print $1; exit }'; }
check "XIP_CACHE=off clears XIP_CTRL.EN at boot; the default leaves it" sh -c "
	arm-none-eabi-objdump -d '$B/xip_off/echo.elf' | grep -A8 '<xip_cache_config>:' | grep -q bics &&
	arm-none-eabi-objdump -d '$B/default/echo.elf' | grep -A1 '<xip_cache_config>:' | tail -n 1 | grep -q 'bx	lr'"
check "CSUM=asm links the assembly checksum" sh -c "
	arm-none-eabi-objdump -d '$B/csum_asm/echo.elf' | grep -A40 '<csum_partial>:' | grep -q adcs &&
	! arm-none-eabi-objdump -d '$B/default/echo.elf' | grep -A60 '<csum_partial>:' | grep -q adcs"
check "MEMCPY=asm links the word-wise memcpy" sh -c "
	arm-none-eabi-objdump -d '$B/memcpy_asm/echo.elf' | grep -A30 '<memcpy>:' | grep -q ldmia &&
	! arm-none-eabi-objdump -d '$B/default/echo.elf' | grep -A12 '<memcpy>:' | grep -q ldmia"

# ---- Relinking with a layout folder: the link step alone ----
L=$XB_WORK/mylayout
mkdir -p "$L"
cat >"$L/xipbench_hot.ld" <<'EOF'
/* xipbench hot text (test) */
__xipbench_hot_start = .;
*(.text.net_ipv4_input)
*(.text.icmpv4_handle_echo_request)
__xipbench_hot_end = .;
EOF
cat >"$L/xipbench_ramfunc.ld" <<'EOF'
/* xipbench RAM functions (test) */
__xipbench_ramfunc_start = .;
*(.text.csum_partial)
*(.text.net_pkt_copy)
__xipbench_ramfunc_end = .;
EOF
touch "$XB_WORK/stamp"
sleep 1
check "relinking with LAYOUT=DIR" build relink.log LAYOUT="$L"
check "  runs the link step only" sh -c "
	grep -q '  LD ' '$XB_WORK/relink.log' && ! grep -Eq '  (CC|AS|AR) ' '$XB_WORK/relink.log' &&
	test -z \"\$(find '$B/default' -name '*.o' -newer '$XB_WORK/stamp')\" &&
	test -z \"\$(find '$B/default' -name '*.a' -newer '$XB_WORK/stamp')\""
RELINKED=$B/default/layouts/mylayout/echo.elf
check "  writes build/<variant>/layouts/<folder>/echo.elf and its map" \
	test -s "$RELINKED" -a -s "$B/default/layouts/mylayout/echo.map"
check "  leaves the stock image alone (an empty hot block)" test \
	"$(sym "$B/default/echo.elf" __xipbench_hot_start)" = "$(sym "$B/default/echo.elf" __xipbench_hot_end)"
HOT=$(sym "$RELINKED" __xipbench_hot_start)
check "  net_ipv4_input opens the hot block after the vector table (0x100001c0)" sh -c "
	test '$HOT' = 100001c0 && test \$(arm-none-eabi-nm '$RELINKED' | awk '\$3==\"net_ipv4_input\"{print \$1}') = '$HOT'"
check "  icmpv4_handle_echo_request follows it in the hot block" sh -c "
	e=\$(arm-none-eabi-nm '$RELINKED' | awk '\$3==\"__xipbench_hot_end\"{print \$1}');
	f=\$(arm-none-eabi-nm '$RELINKED' | awk '\$3==\"icmpv4_handle_echo_request\"{print \$1}');
	test \$((0x\$f)) -gt \$((0x$HOT)) && test \$((0x\$f)) -lt \$((0x\$e))"
check "  csum_partial and net_pkt_copy run from SRAM, between the RAM markers" sh -c "
	s=\$(arm-none-eabi-nm '$RELINKED' | awk '\$3==\"__xipbench_ramfunc_start\"{print \$1}');
	e=\$(arm-none-eabi-nm '$RELINKED' | awk '\$3==\"__xipbench_ramfunc_end\"{print \$1}');
	for f in csum_partial net_pkt_copy; do
		a=\$(arm-none-eabi-nm '$RELINKED' | awk -v f=\$f '\$3==f{print \$1}');
		test \$((0x\$a >> 16)) -eq \$((0x2000)) && test \$((0x\$a)) -ge \$((0x\$s)) &&
			test \$((0x\$a)) -lt \$((0x\$e)) || exit 1;
	done"
check "'make relink' links again without compiling" sh -c "
	touch '$L/xipbench_hot.ld' && make --no-print-directory -C firmware BUILD_DIR='$B' relink LAYOUT='$L' >'$XB_WORK/relink2.log' 2>&1 &&
	grep -q '  LD ' '$XB_WORK/relink2.log' && ! grep -Eq '  (CC|AS|AR) ' '$XB_WORK/relink2.log'"
check_fails "'make relink' refuses a variant that was never built" "build the variant first" \
	make --no-print-directory -C firmware BUILD_DIR="$XB_WORK/empty" relink LAYOUT="$L"
check_fails "a LAYOUT that is not a folder is refused" "no such folder" \
	make --no-print-directory -C firmware BUILD_DIR="$B" LAYOUT="$XB_WORK/none"

# ---- On the virtual Pico ----
banner() { # ELF UARTFILE
	"$XIPBENCH" sim run --elf "$1" --cycles 30000000 --uart "$2" >"$XB_WORK/run.out" 2>&1
}
check "the default image boots on the virtual Pico" banner "$B/echo.elf" "$XB_WORK/uart.txt"
check "  with its banner" grep -q '^\*\*\* xipbench echo firmware (default) \*\*\*' "$XB_WORK/uart.txt"
check "  the clocks the SDK sets up" grep -q 'clk_sys 125000000 Hz, clk_usb 48000000 Hz, XIP cache on' "$XB_WORK/uart.txt"
check "  and a ready network stack" sh -c "grep -q 'net_core: network stack up' '$XB_WORK/uart.txt' &&
	grep -q 'main: ready' '$XB_WORK/uart.txt' && grep -q 'echo: UDP echo on port 7' '$XB_WORK/uart.txt'"
check "  without faults, sleeping in WFI most of the time" sh -c "
	grep -Eq '^faults +0' '$XB_WORK/run.out' &&
	awk '/^cycles/ { c = \$2 } /^sleep cycles/ { s = \$3 } END { exit !(s > c * 0.9) }' '$XB_WORK/run.out'"
check "the XIP_CACHE=off image boots" banner "$B/xip_off/echo.elf" "$XB_WORK/uart_off.txt"
check "  and says its cache is off" grep -q 'XIP cache OFF' "$XB_WORK/uart_off.txt"
check "the relinked image boots (RAM functions copied)" banner "$RELINKED" "$XB_WORK/uart_l.txt"
check "  to a ready stack" grep -q 'main: ready' "$XB_WORK/uart_l.txt"

# ---- The network: enumeration, pings, UDP echoes (tests/unit/test_firmware) ----
T=$XB_BUILD/tests/test_firmware
if [ -x "$T" ]; then
	for e in default/echo.elf lto/echo.elf O2/echo.elf csum_asm/echo.elf memcpy_asm/echo.elf \
		lto-csum_asm-memcpy_asm/echo.elf default/layouts/mylayout/echo.elf; do
		check "enumerates, answers pings and UDP echoes: $e" sh -c "
			XB_FIRMWARE_ELF='$B/$e' CMOCKA_MESSAGE_OUTPUT=TAP '$T' >'$XB_WORK/net.log' 2>&1"
	done
	check "the XIP_CACHE=off image echoes too (slowly)" sh -c "
		XB_FIRMWARE_ELF='$B/xip_off/echo.elf' CMOCKA_MESSAGE_OUTPUT=TAP '$T' >'$XB_WORK/net_off.log' 2>&1 ||
		grep -q 'ok 3 - test_ping' '$XB_WORK/net_off.log'"
else
	echo "ok # SKIP $T not built"
fi

finish
