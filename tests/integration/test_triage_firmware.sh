# test_triage_firmware: `xipbench triage --bench virtual` on variants of the echo firmware
# built here, each with one cause of a slow build on a clean base (word-wise memcpy and
# checksum in assembler): the stock build's generic C byte loops, -O2, misaligned packet
# buffers, assertions and debug logging, the cache switched off by the firmware, and the
# hot path linked through the non-allocating alias (xipbench's own noalloc plan). Each is
# run on the virtual Pico (XIP_CTRL read over SWD, PC samples and the fetch trace during
# 512-byte pings) and must raise exactly its cause to a warning or above against the base,
# with the evidence that names it; the stock build raises nothing severe. nm and the
# firmware's own .config are the oracles for the evidence. Then --compare on two of them,
# and the probe bench on `sim serve`'s probe socket.
. tests/integration/lib.sh
W=$XB_WORK
FW=$XB_SRC/firmware

if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	echo "ok 1 # SKIP arm-none-eabi-gcc or jq not installed"
	exit 0
fi

# build NAME MAKE-ARGS...: the variant into $W/fw, its ELF at $W/NAME.elf, .config beside
build() {
	n=$1
	shift
	make -s -C "$FW" BUILD_DIR="$W/fw" ELF_OUT="$W/$n.elf" "$@" >"$W/$n.build" 2>&1 || return 1
	d=$(make -s -C "$FW" BUILD_DIR="$W/fw" "$@" variant) && cp "$d/.config" "$W/$n.config" 2>>"$W/$n.build"
}
BASE="MEMCPY=asm CSUM=asm"
ok_build=1
# shellcheck disable=SC2086
build base $BASE && build stock && build o2 $BASE OPT=-O2 &&
	build unaligned $BASE BUFFERS=unaligned && build debug $BASE DEBUG=on &&
	build xipoff $BASE XIP_CACHE=off || ok_build=0
if [ $ok_build = 1 ]; then ok "the variants build"; else
	not_ok "the variants build"
	tail -n 5 "$W"/*.build | sed 's/^/# /'
	finish
	exit
fi

# the hot path through the non-allocating alias: xipbench's noalloc plan (no SRAM) from the
# base's profile, linked by the firmware's Makefile
"$XIPBENCH" experiment --quick --elf "$W/base.elf" --layouts stock --out "$W/exp" >"$W/exp.out" 2>&1 &&
	"$XIPBENCH" plan --elf "$W/base.elf" --samples "$W/exp/profiles/ping.samples" \
		--strategy noalloc --sram-budget 0 --out "$W/na" >"$W/plan.out" 2>&1 &&
	make -s -C "$FW" BUILD_DIR="$W/fw" $BASE LAYOUT="$W/na" ELF_OUT="$W/noalloc.elf" >"$W/noalloc.build" 2>&1 &&
	cp "$W/base.config" "$W/noalloc.config" &&
	ok "the noalloc layout links" || not_ok "the noalloc layout links: $(tail -n 3 "$W/plan.out" "$W/noalloc.build")"

for v in base stock o2 unaligned debug xipoff noalloc; do
	if "$XIPBENCH" triage "$W/$v.elf" --bench virtual --ping-size 512 --config "$W/$v.config" \
		--json >"$W/$v.json" 2>"$W/$v.err"; then
		ok "$v: triage on the virtual bench"
	else
		not_ok "$v: triage on the virtual bench: $(cat "$W/$v.err")"
		echo '{"findings": []}' >"$W/$v.json"
	fi
done
keys_documented "triage --bench" "$W/base.json"

sevnum='{"info": 0, "note": 1, "warning": 2, "severe": 3}'
# risen V: the rules whose worst finding is a warning or severe in V and less in the base
risen() {
	jq -r --argjson s "$sevnum" --slurpfile b "$W/base.json" '
		def worst($f): reduce $f[] as $x ({}; .[$x.rule] = ([(.[$x.rule] // -1), $s[$x.severity]] | max));
		(worst($b[0].findings)) as $old | worst(.findings) | to_entries
		| map(select(.value >= 2 and .value > ($old[.key] // -1)) | .key) | sort | join(",")' "$W/$1.json"
}
sev() { jq -r --arg r "$2" '[.findings[] | select(.rule == $r) | .severity] | join(",")' "$W/$1.json"; }
ev() { jq -r --arg r "$2" '.findings[] | select(.rule == $r) | .evidence[]' "$W/$1.json"; }

# the base and the stock build: nothing severe
for v in base stock; do
	n=$(jq '[.findings[] | select(.severity == "severe")] | length' "$W/$v.json")
	[ "$n" = 0 ] && ok "$v: no severe finding" ||
		not_ok "$v: severe: $(jq -c '[.findings[] | select(.severity == "severe") | .rule]' "$W/$v.json")"
done
x=$(jq -r '.xip_ctrl' "$W/base.json")
[ "$x" = "0x00000003" ] && ok "base: XIP_CTRL read over SWD: $x (EN and ERR_BADWRITE, as at reset)" ||
	not_ok "base: XIP_CTRL read as '$x'"

# each variant raises exactly its cause
for pair in stock:byte-loops o2:optimisation unaligned:buffers debug:debug-features \
	xipoff:cache-off noalloc:noalloc-reuse; do
	v=${pair%%:*}
	want=${pair#*:}
	got=$(risen "$v")
	[ "$got" = "$want" ] && ok "$v: raises exactly $want ($(sev "$v" "$want"))" ||
		not_ok "$v: raises '$got', not exactly '$want'"
done

# the evidence of each
addr_of() { arm-none-eabi-nm "$W/$1.elf" | awk -v n="$2" '$3 == n { print $1 }'; }
ev stock byte-loops | grep -q "^memcpy: .* loop at 0x.*LDRB, 1 STRB" &&
	ev stock byte-loops | grep -q "^csum_partial: .* LDRB, 0 STRB, adds" &&
	! ev base byte-loops | grep -q "^csum_partial" &&
	ok "stock: the generic C memcpy and checksum loops, found in the code" ||
	not_ok "stock: byte-loop evidence: $(ev stock byte-loops | head -n 3)"
rx=$(addr_of unaligned rx_bufs_storage)
[ $((0x$rx % 4)) -ne 0 ] && ev unaligned buffers | grep -q "^rx_bufs_storage at 0x$rx, [0-9]* bytes in .bss: $((0x$rx % 4)) byte" &&
	! jq -e '.findings[] | select(.rule == "buffers" and .severity != "info")' "$W/base.json" >/dev/null &&
	ok "unaligned: rx_bufs_storage at 0x$rx (nm), $((0x$rx % 4)) past a word boundary; the base's pools are aligned" ||
	not_ok "unaligned: evidence $(ev unaligned buffers | head -n 2) (nm: 0x$rx)"
ev o2 optimisation | grep -Eq "^net: [0-9]+ bytes \\([0-9]+ lines\\), [0-9.]+ % of the busy time" &&
	jq -e '.findings[] | select(.rule == "optimisation") | .summary | test("^-O2 code")' "$W/o2.json" >/dev/null &&
	ok "o2: -O2 code per library from DW_AT_producer ($(ev o2 optimisation | grep '^net:'))" ||
	not_ok "o2: evidence $(ev o2 optimisation | head -n 3)"
grep -q "^CONFIG_ASSERT=y" "$W/debug.config" &&
	ev debug debug-features | grep -q "CONFIG_ASSERT=y (assertions)" &&
	ev debug debug-features | grep -q "CONFIG_LOG_OVERRIDE_LEVEL=4" &&
	ev debug debug-features | grep -Eq "^(log|format)\\.o: [0-9.]+ % of the busy time" &&
	ok "debug: logging by its source files and the .config's assertions ($(ev debug debug-features | head -n 1))" ||
	not_ok "debug: evidence $(ev debug debug-features | head -n 4)"
ev xipoff cache-off | grep -q "^XIP_CTRL (0x14000000) = 0x00000002: EN = 0" &&
	ok "xipoff: XIP_CTRL read over SWD with EN = 0" || not_ok "xipoff: evidence $(ev xipoff cache-off)"
jq -e '.findings[] | select(.rule == "byte-loops") | .evidence | any(test("kept to a note: the flash cache is off"))' \
	"$W/xipoff.json" >/dev/null || jq -e '[.findings[] | select(.rule == "byte-loops" and .severity != "note" and .severity != "info")] | length == 0' "$W/xipoff.json" >/dev/null &&
	ok "xipoff: the code rules' shares are not taken at face value with the cache off" ||
	not_ok "xipoff: byte-loops $(sev xipoff byte-loops)"
hot=$(sed -n 's/^\*(\.text\.\([A-Za-z0-9_]*\))$/\1/p' "$W/na/xipbench_noalloc.ld" | head -n 1)
ha=$(addr_of noalloc "$hot")
case $ha in 11*) hok=1 ;; *) hok=0 ;; esac
[ $hok = 1 ] && ev noalloc noalloc-reuse | grep -q "samples (.*) in the cached-noalloc alias" &&
	ev noalloc noalloc-reuse | grep -Eq "lines per echo fetched again in the same echo" &&
	ok "noalloc: $hot at 0x$ha (nm); samples in the alias and lines fetched again per echo" ||
	not_ok "noalloc: $hot at 0x$ha, evidence $(ev noalloc noalloc-reuse | head -n 3)"
jq -e '.findings[] | select(.rule == "capacity") | .gain | test("^model: the [0-9]+ functions .* [0-9.]+ KB, in SRAM halve the predicted misses per echo")' \
	"$W/base.json" >/dev/null && ok "base: the SRAM that halves the predicted misses: $(jq -r '.findings[] | select(.rule == "capacity") | .gain' "$W/base.json")" ||
	not_ok "base: capacity gain $(jq -c '.findings[] | select(.rule == "capacity") | .gain' "$W/base.json")"

# --compare: the -O2 build against the base, with their profiles from experiment
"$XIPBENCH" experiment --quick --elf "$W/o2.elf" --layouts stock --out "$W/exp2" >"$W/exp2.out" 2>&1 &&
	"$XIPBENCH" triage "$W/o2.elf" --samples "$W/exp2/profiles/ping.samples" --trace "$W/exp2/profiles/ping.trace" \
		--compare "$W/base.elf" --old-samples "$W/exp/profiles/ping.samples" \
		--old-trace "$W/exp/profiles/ping.trace" --json >"$W/cmp.json" 2>"$W/cmp.err" ||
	not_ok "--compare runs: $(cat "$W/cmp.err")"
jq_on "$W/cmp.json" "--compare o2 against base: optimisation changed, code grew, both predictions" \
	'(.findings | any(.rule == "optimisation" and .change == "changed" and .new_severity == "warning")) and
	 (.functions.grew | length > 10) and .flash_bytes.new > .flash_bytes.old and
	 .predicted_misses_per_echo.new > 0 and .predicted_misses_per_echo.old > 0'

# the probe bench: sim serve's probe socket and UDP port, XIP_CTRL over SWD, samples; no
# trace on a real bench
port=$(awk 'BEGIN { srand(); print 20000 + int(rand() * 20000) }')
"$XIPBENCH" sim serve --elf "$W/xipoff.elf" --probe-socket "$W/pb.sock" --udp-port "$port" \
	--seconds 120 >"$W/pb.serve" 2>&1 &
spid=$!
i=0
while [ ! -S "$W/pb.sock" ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
"$XIPBENCH" triage "$W/xipoff.elf" --bench probe --probe-socket "$W/pb.sock" \
	--udp-target "127.0.0.1:$port" --udp-rate 10 --udp-seconds 3 --json >"$W/pb.json" 2>"$W/pb.err"
rc=$?
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
[ $rc -eq 0 ] && jq -e '.xip_ctrl == "0x00000002" and .trace == null and .busy_samples > 0 and
	(.findings | any(.rule == "cache-off" and .severity == "severe")) and
	(.not_checked | any(.rule == "capacity"))' "$W/pb.json" >/dev/null &&
	ok "probe bench: XIP_CTRL over sim serve's probe socket, samples, no trace" ||
	not_ok "probe bench (exit $rc): $(cat "$W/pb.err") $(jq -c '{xip_ctrl, busy_samples}' "$W/pb.json" 2>/dev/null)"

# usage errors
check_fails "--bench with --samples is a usage error" "no --samples" \
	"$XIPBENCH" triage "$W/base.elf" --bench virtual --samples "$W/exp/profiles/ping.samples"
check_fails "--bench with a bad kind" "virtual, probe or probe:SERIAL" \
	"$XIPBENCH" triage "$W/base.elf" --bench nowhere
check_fails "--pings without --bench" "go with --bench" "$XIPBENCH" triage "$W/base.elf" --pings 5
finish
