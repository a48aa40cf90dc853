# test_sim_run: `xipbench sim run` on the virtual Pico test programs (tests/data/pico):
# UART output as it happens, the report and its --json keys, ELF/UF2/raw images, identical
# runs, --until, --trace read back by `xipbench cache`, --strict, and clear failures.
. tests/integration/lib.sh

PROGS="$XB_BUILD/pico-progs"
if ! sh tests/data/pico/build.sh "$PROGS" >"$XB_WORK/build.log" 2>&1; then
	not_ok "build the test programs with arm-none-eabi-gcc"
	sed 's/^/# /' "$XB_WORK/build.log" | head -n 20
	finish
	exit 1
fi

sim() { "$XIPBENCH" sim run "$@"; }

# Each program prints its results on UART0; --uart - copies them to standard output.
sim --elf "$PROGS/crc32.elf" --uart - >"$XB_WORK/crc.out" 2>&1
expect "crc32 prints its check value, then the report" "$XB_WORK/crc.out" \
	'^crc32 check cbf43926$' '^exit 0$' '^result +halted$' '^faults +0$' \
	'^xip hits +[0-9]+ \(' '^final pc +0x1000'
sim --elf "$PROGS/sort.elf" --uart - >"$XB_WORK/sort.out" 2>&1
expect "sort orders its numbers" "$XB_WORK/sort.out" '^sort ordered$'
sim --elf "$PROGS/arith64.elf" --uart - >"$XB_WORK/arith.out" 2>&1
expect "64-bit arithmetic through libgcc and the SIO divider" "$XB_WORK/arith.out" \
	'^fact20 2432902008176640000$' '^sdiv -1234567890123456 smod -789$' \
	'^hwdiv -100 / 0 = 1 r -100$'
sim --elf "$PROGS/systick.elf" --uart - >"$XB_WORK/systick.out" 2>&1
expect "SysTick wakes WFI ten times in a millisecond" "$XB_WORK/systick.out" \
	'^systick 10 ticks in 100[0-2] us$' '^exceptions +10$'
sim --elf "$PROGS/pendsv.elf" --uart - >"$XB_WORK/pendsv.out" 2>&1
expect "PendSV switches between two tasks" "$XB_WORK/pendsv.out" \
	'^A0 B0 A1 B1 A2 B2 $' '^pendsv switches 6$'
sim --elf "$PROGS/alarm.elf" --uart - >"$XB_WORK/alarm.out" 2>&1
expect "TIMER alarms interrupt in order; a disarmed one stays quiet" "$XB_WORK/alarm.out" \
	'^alarm 0 at \+10[0-2] us$' '^alarm 1 at \+20[0-2] us$' '^alarm 3 at \+40[0-2] us$' \
	'^fired 3 armed 00000000$'
sim --elf "$PROGS/flash.elf" --uart - >"$XB_WORK/flash.out" 2>&1
expect "flash erase and program through the bootrom" "$XB_WORK/flash.out" \
	'^flash erase 4500[0-2] us program 40[0-2] us verify ok$'

# reset_to_usb_boot ends the run, and says so.
sim --elf "$PROGS/usbboot.elf" --uart - >"$XB_WORK/usbboot.out" 2>&1
expect "reset_to_usb_boot is reported" "$XB_WORK/usbboot.out" '^to bootsel$' \
	'^result +usb_boot$' 'the firmware asked for USB boot \(reset_to_usb_boot' \
	'activity gpio mask 0x2000000, disable interface mask 0x0'
if grep -q "still running" "$XB_WORK/usbboot.out"; then not_ok "nothing runs after USB boot"; else ok "nothing runs after USB boot"; fi
sim --elf "$PROGS/usbboot.elf" --json >"$XB_WORK/usbboot.json" 2>/dev/null
expect "reset_to_usb_boot in --json" "$XB_WORK/usbboot.json" '"result": "usb_boot"' \
	'"usb_boot": [{]"activity_gpio_mask": 33554432, "disable_interface_mask": 0[}]'
keys_documented "sim run (usb boot)" "$XB_WORK/usbboot.json"

# Core 1 locks up; core 0 goes on to its end, and the report says what core 1 did.
sim --elf "$PROGS/core1_fault.elf" --uart - >"$XB_WORK/core1.out" 2>&1
expect "a core 1 lockup does not end the run, and is reported" "$XB_WORK/core1.out" \
	'^core0 goes on$' '^result +halted$' '^faults +0$' \
	'^core 1 +lockup, pc 0xfffffffe, [0-9]+ instructions, 2 faults$' \
	'^core 1 fault +lockup: branch to an address without the Thumb bit at 0x10000200' \
	'^sim: core 1: HardFault: undefined instruction'
sim --elf "$PROGS/core1_fault.elf" --json >"$XB_WORK/core1.json" 2>/dev/null
expect "core 1 in --json" "$XB_WORK/core1.json" '"core1": [{]"state": "lockup", "pc": "0xfffffffe"' \
	'"faults": 2, "last_fault": "lockup: '
keys_documented "sim run (core 1 lockup)" "$XB_WORK/core1.json"

# --peripherals: the registers nothing models, with counts and first PCs.
sim --elf "$PROGS/unmodelled.elf" --peripherals >"$XB_WORK/unmod.out" 2>/dev/null
expect "--peripherals prints the unmodelled registers" "$XB_WORK/unmod.out" \
	'^unmodelled +[0-9]+ registers the board does not model:$' \
	'^  block +offset +address +reads +writes +first pc$' \
	'^  - +- +0x40070000 +3 +0  0x100[0-9a-f]{5}$' '^  - +- +0xa0000000 +1 +0  0x100[0-9a-f]{5}$'
sim --elf "$PROGS/unmodelled.elf" --peripherals --json >"$XB_WORK/unmod.json" 2>/dev/null
expect "--peripherals in --json" "$XB_WORK/unmod.json" \
	'"unmodelled": \[.*[{]"block": "-", "offset": "0x40070000", "address": "0x40070000", "reads": 3, "writes": 0, "first_pc": "0x100[0-9a-f]{5}"[}]' \
	'"unmodelled_dropped": 0'
keys_documented "sim run --peripherals" "$XB_WORK/unmod.json"
sim --elf "$PROGS/crc32.elf" --peripherals >"$XB_WORK/unmod0.out" 2>/dev/null
expect "--peripherals with nothing unmodelled" "$XB_WORK/unmod0.out" '^unmodelled +none'

# --json: one line with every documented key.
sim --elf "$PROGS/crc32.elf" --json >"$XB_WORK/a.json" 2>"$XB_WORK/a.err"
expect "--json has every key" "$XB_WORK/a.json" '"image": ' '"format": "elf"' \
	'"loaded_bytes": [0-9]+' '"result": "halted"' '"cycles": [0-9]+' '"cpu_hz": 125000000' \
	'"seconds": [0-9.]+' '"instructions": [0-9]+' '"sleep_cycles": [0-9]+' \
	'"exceptions": [0-9]+' '"xip_accesses": [0-9]+' '"xip_hits": [0-9]+' \
	'"xip_misses": [0-9]+' '"faults": 0' '"last_fault": null' '"final_pc": "0x[0-9a-f]{8}"' \
	'"uart_bytes": 48' '"unmapped_accesses": 0' '"timer_us": [0-9]+'
if [ "$(wc -l <"$XB_WORK/a.json")" -eq 1 ]; then ok "--json prints one line"; else not_ok "--json prints one line"; fi
sim --elf "$PROGS/crc32.elf" --json >"$XB_WORK/b.json" 2>&1
check "two runs give identical JSON" cmp "$XB_WORK/a.json" "$XB_WORK/b.json"

# The same firmware as UF2 and as a raw image gives the same run.
field() { sed 's/.*"'"$1"'": \([0-9]*\).*/\1/' "$2"; }
sim --uf2 "$PROGS/crc32.uf2" --json >"$XB_WORK/uf2.json" 2>&1
sim --bin "$PROGS/crc32.bin" --at 0x10000000 --json >"$XB_WORK/bin.json" 2>&1
if [ "$(field cycles "$XB_WORK/a.json")" = "$(field cycles "$XB_WORK/uf2.json")" ] &&
	[ "$(field cycles "$XB_WORK/a.json")" = "$(field cycles "$XB_WORK/bin.json")" ] &&
	grep -q '"format": "uf2"' "$XB_WORK/uf2.json" && grep -q '"format": "bin"' "$XB_WORK/bin.json"; then
	ok "ELF, UF2 and raw images run the same"
else
	not_ok "ELF, UF2 and raw images run the same"
	sed 's/^/# /' "$XB_WORK/uf2.json" "$XB_WORK/bin.json"
fi

# --until stops on UART text; --uart FILE keeps the output.
sim --elf "$PROGS/hello.elf" --until "virtual pico" --uart "$XB_WORK/uart.txt" --json \
	>"$XB_WORK/until.json" 2>&1
expect "--until stops when the text appears" "$XB_WORK/until.json" '"result": "uart"'
expect "--uart FILE holds what UART0 sent" "$XB_WORK/uart.txt" '^hello from the virtual pico$'
sim --elf "$PROGS/hello.elf" --cycles 1000000 --json >"$XB_WORK/budget.json" 2>&1
expect "--cycles is the budget" "$XB_WORK/budget.json" '"result": "budget"' '"cycles": 1000000,'

# --trace writes the fetch trace; xipbench cache reads it back.
sim --elf "$PROGS/crc32.elf" --trace "$XB_WORK/crc.trace" >"$XB_WORK/trace.out" 2>&1
"$XIPBENCH" cache --trace "$XB_WORK/crc.trace" --no-opt --json >"$XB_WORK/cache.json" 2>&1
expect "--trace is a trace xipbench cache reads" "$XB_WORK/cache.json" '"fetches": [1-9][0-9]*'

# Paced to the wall clock (here at 1000 times real time), a run gives the same figures.
"$XIPBENCH" sim run --elf "$PROGS/crc32.elf" --cycles 1234567 --json >"$XB_WORK/virtual.json" 2>&1
"$XIPBENCH" sim run --elf "$PROGS/crc32.elf" --cycles 1234567 --speed 1000 --json >"$XB_WORK/paced.json" 2>&1
if cmp -s "$XB_WORK/virtual.json" "$XB_WORK/paced.json"; then ok "--realtime pacing changes no figure"; else
	not_ok "--realtime pacing changed the figures"; diff "$XB_WORK/virtual.json" "$XB_WORK/paced.json" | sed 's/^/# /'; fi
check_fails "--speed needs a positive factor" "speed needs a factor" \
	"$XIPBENCH" sim run --elf "$PROGS/crc32.elf" --speed 0

# --strict turns an unmapped read into a reported fault.
sim --elf "$PROGS/unmapped.elf" --uart - >"$XB_WORK/loose.out" 2>&1
expect "an unmapped read is reported and reads 0" "$XB_WORK/loose.out" \
	'unmapped read of 4 bytes at 0xa0000000' '^read 00000000$' '^faults +0$'
sim --elf "$PROGS/unmapped.elf" --strict --json >"$XB_WORK/strict.json" 2>"$XB_WORK/strict.err"
expect "--strict makes it a HardFault in the report" "$XB_WORK/strict.json" \
	'"faults": 1' '"last_fault": "HardFault: bus error on read at 0xa0000000'

# Bad input: a clear message naming the file, exit 1, never a signal.
head -c 200 "$PROGS/crc32.elf" >"$XB_WORK/cut.elf"
check_fails "a truncated ELF fails with a message" "cut.elf: .*truncated" sim --elf "$XB_WORK/cut.elf"
printf 'not a firmware image\n' >"$XB_WORK/junk.elf"
check_fails "junk fails with a message" "junk.elf: not an ELF file" sim --elf "$XB_WORK/junk.elf"
head -c 1000 "$PROGS/crc32.uf2" >"$XB_WORK/cut.uf2"
check_fails "a truncated UF2 fails with a message" "cut.uf2: .*512-byte" sim --uf2 "$XB_WORK/cut.uf2"
check_fails "a raw image outside memory fails" "outside the board's flash and SRAM" \
	sim --bin "$PROGS/crc32.bin" --at 0x30000000
check_fails "a missing file fails" "nope.elf" sim --elf "$XB_WORK/nope.elf"
"$XIPBENCH" sim run --elf "$XB_WORK/cut.elf" >/dev/null 2>&1
if [ $? -eq 1 ]; then ok "bad input exits 1"; else not_ok "bad input exits 1"; fi
"$XIPBENCH" sim run >/dev/null 2>&1
if [ $? -eq 2 ]; then ok "no image is a usage error (exit 2)"; else not_ok "no image is a usage error (exit 2)"; fi
check_fails "--bin needs --at" "at ADDR goes with --bin" sim --bin "$PROGS/crc32.bin"
check_fails "only 'run'" "expected 'run'" "$XIPBENCH" sim walk
check "sim --help" "$XIPBENCH" sim run --help
# how the image starts: the test programs have no boot2, so auto starts them directly; as
# the chip boots (--boot boot2) the CRC of flash's first 252 bytes does not match
sim --elf "$PROGS/crc32.elf" --cycles 100000 >"$XB_WORK/boot.out" 2>&1
expect "--boot auto: a direct start for an image without boot2" "$XB_WORK/boot.out" "^boot +direct start$"
sim --elf "$PROGS/crc32.elf" --cycles 100000 --boot boot2 --json >"$XB_WORK/boot2.json" 2>"$XB_WORK/boot2.err"
[ "$(jq -r '.boot.used + " " + (.boot.boot2_valid | tostring) + " " + (.boot.bad_crc_usb_boot | tostring)' "$XB_WORK/boot2.json")" = "boot2 false true" ] &&
	[ "$(jq -r .uart_bytes "$XB_WORK/boot2.json")" = 0 ] &&
	ok "--boot boot2 without a valid boot2: the chip would enter USB boot, the program never runs" ||
	not_ok "--boot boot2: $(jq -c .boot "$XB_WORK/boot2.json")"
check_fails "--boot with an unknown mode" "is not auto, direct or boot2" sim --elf "$PROGS/crc32.elf" --boot rom
check_fails "--netmask that is no netmask" "needs a netmask" sim --elf "$PROGS/crc32.elf" --ping 1 --netmask 255.0.255.0
finish
