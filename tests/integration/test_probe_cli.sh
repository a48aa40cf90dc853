# xipbench probe: `list` on this machine's USB, then info, counters, sample and flash against
# the virtual Pico's probe behind a Unix socket (served by `xipbench sim serve
# --probe-socket`, or by build/tests/test_probe_socket --serve in a build without it), usage
# errors, and a socket that goes away.
. tests/integration/lib.sh
W=$XB_WORK
SERVER="$XB_BUILD/tests/test_probe_socket"
SOCK="$W/p.sock"

# every key of a JSON output appears in docs/cli.md (as test_docs.sh checks it)

# ---- list: whatever this machine has ----
"$XIPBENCH" probe list >"$W/list.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && { grep -qx none "$W/list.out" || grep -q "CMSIS-DAP v[12]" "$W/list.out"; }; then
	ok "probe list: $(head -n 1 "$W/list.out")"
elif [ $rc -eq 1 ] && grep -q "cannot use USB" "$W/list.out"; then
	ok "probe list: no USB here: $(head -n 1 "$W/list.out")"
else
	not_ok "probe list (exit $rc)"
	sed 's/^/# /' "$W/list.out"
fi
if [ $rc -eq 0 ]; then
	"$XIPBENCH" probe list --json >"$W/list.json" && jq -e '.probes | type == "array"' "$W/list.json" >/dev/null &&
		ok "probe list --json" || not_ok "probe list --json"
fi
if grep -qx none "$W/list.out"; then
	check_fails "probe info without a probe says so" "no CMSIS-DAP probe found" "$XIPBENCH" probe info
fi

# ---- usage errors ----
check_fails "probe without a subcommand" "which one" "$XIPBENCH" probe
check_fails "unknown subcommand" "unknown subcommand 'bogus'" "$XIPBENCH" probe bogus
check_fails "sample needs --out" "needs --seconds S and --out FILE" "$XIPBENCH" probe sample --seconds 1
check_fails "flash needs --elf" "needs --elf FILE" "$XIPBENCH" probe flash --socket "$SOCK"
check_fails "--probe and --socket" "not both" "$XIPBENCH" probe info --probe X --socket "$SOCK"
check_fails "bad --swclk" "swclk needs" "$XIPBENCH" probe info --swclk fast
"$XIPBENCH" probe --help | grep -q "usage: xipbench probe" && ok "probe --help" || not_ok "probe --help"
check_fails "no socket there" "no such socket" "$XIPBENCH" probe info --socket "$W/none.sock"

# ---- the virtual probe behind a socket ----
# `xipbench sim serve --probe-socket` when this build has it, else the unit test's server
sh tests/data/dap/build.sh "$XB_BUILD/dap-progs" >"$W/progs.log" 2>&1 ||
	{ not_ok "the test programs build"; cat "$W/progs.log"; exit 1; }
if "$XIPBENCH" sim serve --help 2>&1 | grep -q -e "--probe-socket"; then
	"$XIPBENCH" sim serve --elf "$XB_BUILD/dap-progs/spin.elf" --probe-socket "$SOCK" \
		--seconds 120 >"$W/server.log" 2>&1 &
	echo "# server: xipbench sim serve"
else
	"$SERVER" --serve "$SOCK" spin >"$W/server.log" 2>&1 &
	echo "# server: $SERVER --serve"
fi
pid=$!
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$SOCK" ] && ok "the virtual probe serves $SOCK" || { not_ok "no server"; cat "$W/server.log"; kill $pid; exit 1; }

check "probe info --socket" "$XIPBENCH" probe info --socket "$SOCK"
grep -q "DLPIDR         0x00000001" "$W/last.out" && grep -q "state          running" "$W/last.out" &&
	ok "info: core 0, running" || { not_ok "info output"; sed 's/^/# /' "$W/last.out"; }
"$XIPBENCH" probe info --socket "$SOCK" --json >"$W/info.json" &&
	jq -e '.dpidr == "0x0bc12477" and .targetid == "0x01002927" and .packet_count == 8 and .error == null' "$W/info.json" >/dev/null &&
	ok "info --json" || not_ok "info --json: $(cat "$W/info.json")"
keys_documented "probe info" "$W/info.json"

"$XIPBENCH" probe counters --socket "$SOCK" --json >"$W/c1.json" &&
	jq -e '.ctr_acc > 0 and .ctr_hit <= .ctr_acc and .misses == .ctr_acc - .ctr_hit and .cleared == false' "$W/c1.json" >/dev/null &&
	ok "counters: the program runs from flash" || not_ok "counters: $(cat "$W/c1.json")"
keys_documented "probe counters" "$W/c1.json"
check "counters --clear" "$XIPBENCH" probe counters --socket "$SOCK" --clear
grep -q "cleared   yes" "$W/last.out" && ok "counters cleared" || not_ok "counters --clear output"

"$XIPBENCH" probe sample --socket "$SOCK" --seconds 0.2 --idle-seconds 0.1 --out "$W/s.bin" --json \
	>"$W/sample.json" 2>"$W/sample.err" &&
	jq -e '.samples > 0 and .per_block == 15 and .idle_samples > 0 and .busy_seconds >= 0.2 and .virtual_time == false' "$W/sample.json" >/dev/null &&
	ok "sample: $(jq -r '"\(.samples) samples, \(.rate | floor)/s"' "$W/sample.json")" ||
	not_ok "sample: $(cat "$W/sample.json" "$W/sample.err")"
keys_documented "probe sample" "$W/sample.json"
grep -q "idle window of 0.1 s now" "$W/sample.err" && ok "sample announces the idle window" || not_ok "no idle announcement"
[ "$(head -c 8 "$W/s.bin")" = XIPBSMP1 ] && ok "the sample file is binary" || not_ok "sample file"
n=$(jq .samples "$W/sample.json")
size=$(wc -c <"$W/s.bin")
[ "$size" -eq $((40 + 8 * n)) ] && ok "the sample file holds every sample" || not_ok "sample file: $size bytes for $n samples"

"$XIPBENCH" probe flash --socket "$SOCK" --elf "$XB_BUILD/dap-progs/flashme.elf" --json >"$W/flash.json" &&
	jq -e '.verified and .sectors == 1 and .lo == "0x10000000" and .state == "halted"' "$W/flash.json" >/dev/null &&
	ok "flash: programmed, verified, ran to its BKPT" || not_ok "flash: $(cat "$W/flash.json")"
keys_documented "probe flash" "$W/flash.json"
check_fails "flash refuses a non-ELF" "not an ELF file" "$XIPBENCH" probe flash --socket "$SOCK" --elf "$W/s.bin"

# core 1: its DP answers and its own peripheral bus too (it waits in the bootrom for its
# launch: asleep)
"$XIPBENCH" probe info --socket "$SOCK" --core 1 --json >"$W/info1.json" 2>"$W/info1.err"
jq -e '.dlpidr == "0x10000001" and .cpuid == "0x410cc601" and .error == null' "$W/info1.json" >/dev/null &&
	ok "info --core 1: DLPIDR 0x10000001, its CPUID read through its own PPB" ||
	not_ok "info --core 1: $(cat "$W/info1.json")"

kill $pid
wait $pid 2>/dev/null
[ ! -e "$SOCK" ] && ok "the server removed its socket" || not_ok "socket left behind"
check_fails "no server any more" "no such socket|nobody listens" "$XIPBENCH" probe counters --socket "$SOCK"
finish
