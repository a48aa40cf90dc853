# test_triage: `xipbench triage` on an image built here (tests/data/triage: -Os with -g, one
# file at -O2, three functions whose first lines share a cache set) with sample files made
# from its symbols (nm) for one cause at a time: each run flags exactly its cause with its
# evidence, and the stock profile raises nothing above info. The code scan is checked
# against objdump's disassembly, the sets against the address arithmetic of the RP2040's
# cache (8-byte lines, 1024 sets of 2 ways: 8 KB apart is the same set).
. tests/integration/lib.sh
W=$XB_WORK
S=tests/data/triage

if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	echo "ok 1 # SKIP arm-none-eabi-gcc or jq not installed"
	exit 0
fi
CF="-mcpu=cortex-m0plus -mthumb -g -ffunction-sections -ffreestanding -nostdlib -fno-builtin"
arm-none-eabi-gcc $CF -Os -c "$S/app.c" -o "$W/app.o" &&
	arm-none-eabi-gcc $CF -O2 -c "$S/fast.c" -o "$W/fast.o" &&
	arm-none-eabi-gcc $CF -T "$S/triage.ld" -Wl,-Map="$W/t.map" -o "$W/t.elf" "$W/app.o" "$W/fast.o" ||
	{ not_ok "the test image links"; finish; exit; }
ELF=$W/t.elf
addr() { arm-none-eabi-nm "$ELF" | awk -v n="$1" '$3 == n { print $1 }'; }
# samples FILE NAME:COUNT[:OFFSET[:ALIAS]]...: COUNT samples at NAME+OFFSET (default 0),
# through the alias base ALIAS (0x13000000 for the uncached one) instead of 0x10000000
samples() {
	f=$1
	shift
	printf 'busy-seconds 1\nidle-seconds 1\n' >"$f"
	for spec in "$@"; do
		name=${spec%%:*}
		rest=${spec#*:}
		count=${rest%%:*}
		off=0
		alias=0
		case $rest in *:*) off=${rest#*:}; case $off in *:*) alias=${off#*:}; off=${off%%:*} ;; esac ;; esac
		a=$((0x$(addr "$name") + off))
		[ "$alias" != 0 ] && a=$((a - 0x10000000 + alias))
		i=0
		while [ $i -lt "$count" ]; do printf '0x%08x\n' "$a"; i=$((i + 1)); done >>"$f"
	done
}
triage() { "$XIPBENCH" triage "$ELF" --map "$W/t.map" "$@"; }
sev() { jq -r --arg r "$2" '[.findings[] | select(.rule == $r) | .severity] | join(",")' "$1"; }

# The loops objdump shows: copy_bytes and sum_bytes move or sum one byte per iteration,
# copy_words one word.
arm-none-eabi-objdump -d "$ELF" >"$W/dis.txt"
awk '/<copy_bytes>:/,/^$/' "$W/dis.txt" | grep -q 'ldrb' &&
	awk '/<copy_bytes>:/,/^$/' "$W/dis.txt" | grep -q 'strb' &&
	awk '/<copy_words>:/,/^$/' "$W/dis.txt" | grep -Eq '	ldr	' &&
	! awk '/<copy_words>:/,/^$/' "$W/dis.txt" | grep -q 'ldrb' &&
	ok "objdump: copy_bytes moves bytes, copy_words words" || not_ok "the fixture's loops are not what the test expects"
A=$((0x$(addr set_a))) B=$((0x$(addr set_b))) C=$((0x$(addr set_c)))
[ $(((A >> 3) & 1023)) -eq $(((B >> 3) & 1023)) ] && [ $(((A >> 3) & 1023)) -eq $(((C >> 3) & 1023)) ] &&
	ok "set_a, set_b and set_c start in cache set $(((A >> 3) & 1023))" || not_ok "the three functions are not in one set"

# 1. stock: time spread over the word copy, main and one of the three: nothing above info
samples "$W/stock.txt" copy_words:400:12 main:300 set_a:200 fast_path:20
triage --samples "$W/stock.txt" --json >"$W/stock.json" 2>"$W/stock.err" || not_ok "triage stock (exit $?)"
jq_on "$W/stock.json" "the stock profile: no finding above info" \
	'.busy_samples == 920 and ([.findings[] | select(.severity != "info")] | length == 0)'
keys_documented "triage" "$W/stock.json"

# 2. byte loops: the copy and the checksum, found from the code, with their loops
samples "$W/bytes.txt" copy_bytes:500:12 sum_bytes:300:12 main:200
triage --samples "$W/bytes.txt" --json >"$W/bytes.json"
jq_on "$W/bytes.json" "byte loops: severe, copy_bytes and sum_bytes with their loops, not copy_words" \
	"([.findings[] | select(.rule == \"byte-loops\")] | length == 1) and
	 (.findings[] | select(.rule == \"byte-loops\") | .severity == \"severe\" and
	  (.evidence | any(test(\"^copy_bytes: 50.0 % .*loop at 0x$(printf '%08x' $((0x$(addr copy_bytes) + 4)))-0x.*1 LDRB, 1 STRB\"))) and
	  (.evidence | any(test(\"^sum_bytes: 30.0 % .* 1 LDRB, 0 STRB, adds\"))) and
	  (.evidence | all(test(\"copy_words\") | not)) and (.fix | test(\"word-at-a-time\")))"
[ "$(jq '[.findings[] | select(.severity == "severe" or .severity == "warning")] | length' "$W/bytes.json")" = 1 ] &&
	ok "byte loops: no other finding above note" || not_ok "byte loops: other findings: $(jq -c '[.findings[] | .rule]' "$W/bytes.json")"

# 3. the cache bypassed: the same code sampled through the uncached alias; XIP_CTRL read 0
samples "$W/alias.txt" copy_words:400:12:0x13000000 main:300:0:0x13000000 set_a:300
triage --samples "$W/alias.txt" --json >"$W/alias.json"
jq_on "$W/alias.json" "uncached alias: severe cache-off, 70 % in the uncached-noalloc alias" \
	'(.findings[] | select(.rule == "cache-off") | .severity == "severe" and
	  (.evidence | any(test("^700 samples \\(70.0 %\\) in the uncached-noalloc alias"))))'
triage --xip-ctrl 0x0 --json >"$W/ctrl0.json"
jq_on "$W/ctrl0.json" "XIP_CTRL = 0: severe, the register and its EN bit as evidence" \
	'(.findings[] | select(.rule == "cache-off") | .severity == "severe" and
	  (.evidence | any(test("XIP_CTRL \\(0x14000000\\) = 0x00000000: EN = 0"))))'
triage --xip-ctrl 0x3 --json >"$W/ctrl3.json"
[ "$(sev "$W/ctrl3.json" cache-off)" = "" ] && ok "XIP_CTRL = 0x3 (EN, ERR_BADWRITE): no cache-off finding" ||
	not_ok "XIP_CTRL = 0x3 flagged: $(sev "$W/ctrl3.json" cache-off)"

# 4. three hot functions in one set of a two-way cache
samples "$W/sets.txt" set_a:300 set_b:300 set_c:300 main:100
triage --samples "$W/sets.txt" --json >"$W/sets.json"
jq_on "$W/sets.json" "conflicting sets: set $(((A >> 3) & 1023)) with set_a, set_b, set_c, 90 % of the time" \
	"(.findings[] | select(.rule == \"conflicting-sets\") | .severity == \"warning\" and
	  (.summary | test(\"^1 cache sets hold more hot lines than the 2 ways: 90.0 %\")) and
	  (.evidence | any(test(\"^set $(((A >> 3) & 1023)): 3 hot lines, 90.0 %: set_a, set_b, set_c\"))) and
	  .action == \":preset colour\")"

# 5. the assertion hook hot and CONFIG_ASSERT=y in the configuration
samples "$W/assert.txt" assert_post_action:150 copy_words:700:12 main:150
printf 'CONFIG_ASSERT=y\n# CONFIG_LOG is not set\nCONFIG_NET_STATISTICS=y\n' >"$W/.config"
triage --samples "$W/assert.txt" --config "$W/.config" --json >"$W/assert.json"
jq_on "$W/assert.json" "debug features: warning, the hook's 15 % and the two options" \
	"(.findings[] | select(.rule == \"debug-features\") | .severity == \"warning\" and
	  (.evidence | any(test(\"^assert_post_action: 15.0 %\"))) and
	  (.evidence | any(test(\"CONFIG_ASSERT=y\"))) and (.evidence | any(test(\"CONFIG_NET_STATISTICS=y\"))))"

# 6. the -O2 object hot: its flags from DW_AT_producer, its size in lines
samples "$W/o2.txt" fast_path:600:8 main:400
triage --samples "$W/o2.txt" --json >"$W/o2.json"
O2SIZE=$((0x$(arm-none-eabi-nm -S "$ELF" | awk '$4 == "fast_path" { print $2 }')))
jq_on "$W/o2.json" "optimisation: fast.c's -O2 code ($O2SIZE bytes), 60 % of the time (a warning from 25 %), the only level flagged" \
	"(.findings[] | select(.rule == \"optimisation\") | .severity == \"warning\" and
	  (.summary | test(\"^-O2 code: $O2SIZE bytes .*, 60.0 % of the busy time\"))) and
	 ([.findings[] | select(.rule == \"optimisation\")] | length == 1)"

# 8. traces: one echo's footprint against the cache's 2048 lines; code in the
# non-allocating alias fetched twice per echo
lines_trace() { # FILE LINES ALIAS-BASE FETCHES-PER-LINE: three echoes
	awk -v n="$2" -v base="$3" -v k="$4" 'BEGIN {
		for (e = 0; e < 3; e++) { print "echo"; for (r = 0; r < k; r++) for (i = 0; i < n; i++)
			printf "0x%08x\n", base + 256 + 8 * i } }' >"$1"
}
lines_trace "$W/big.trace" 3000 268435456 1
triage --trace "$W/big.trace" --json >"$W/big.json"
jq_on "$W/big.json" "capacity: 3000 lines an echo against 2048, 952 lines (7.4 KB) over" \
	'(.findings[] | select(.rule == "capacity") | .severity == "warning" and
	  (.summary | test("^one echo touches 3000 cache lines, 146 % of the cache.s 2048: capacity misses")) and
	  (.evidence | any(test("^952 lines \\(7.4 KB\\) more than the cache holds"))) and
	  (.fix | test("at least 7.4 KB of the hot path to SRAM")) and .action == ":preset sram 8K")'
lines_trace "$W/small.trace" 500 268435456 1
triage --trace "$W/small.trace" --json >"$W/small.json"
[ "$(sev "$W/small.json" capacity)" = info ] && ok "capacity: 500 lines fit, info only" ||
	not_ok "capacity with 500 lines: $(sev "$W/small.json" capacity)"
lines_trace "$W/noalloc.trace" 200 285212672 2
triage --trace "$W/noalloc.trace" --json >"$W/noalloc.json"
jq_on "$W/noalloc.json" "non-allocating alias: 200 lines fetched again in each echo, 50 % of its fetches" \
	'(.findings[] | select(.rule == "noalloc-reuse") | .severity == "warning" and
	  (.summary | test("fetched again within one echo: 200 lines per echo, 50 % of its fetches")) and
	  (.evidence | any(test("^200 lines per echo fetched again in the same echo \\(median over 3 echoes\\); 600 of the alias.s 1200 fetches \\(50 %\\)"))))'
[ "$(sev "$W/small.json" noalloc-reuse)" = "" ] && ok "no non-allocating fetches: no noalloc finding" ||
	not_ok "noalloc-reuse without such fetches"

# 9. --compare: the same image with fast.c at -Os as the build before; each with a trace
arm-none-eabi-gcc $CF -Os -c "$S/fast.c" -o "$W/fast_os.o" &&
	arm-none-eabi-gcc $CF -T "$S/triage.ld" -Wl,-Map="$W/old.map" -o "$W/old.elf" "$W/app.o" "$W/fast_os.o" ||
	not_ok "the old image links"
OLDSIZE=$((0x$(arm-none-eabi-nm -S "$W/old.elf" | awk '$4 == "fast_path" { print $2 }')))
triage --compare "$W/old.elf" --trace "$W/big.trace" --old-trace "$W/small.trace" --json >"$W/cmp.json"
# LRU, 2 ways, 1024 sets: 500 lines miss once in the first of three echoes (166.7 a echo);
# 3000 lines leave 952 sets with three lines that evict each other on every pass:
# (3000 + 2 x 2856) / 3 = 2904.0
jq_on "$W/cmp.json" "--compare: fast_path grew $OLDSIZE -> $O2SIZE bytes, the -O2 finding is new, flash +$((O2SIZE - OLDSIZE)), predicted 166.7 -> 2904.0" \
	"(.functions | .both == 9 and .added == 0 and .removed == 0 and .grew == [{name: \"fast_path\", old_size: $OLDSIZE, new_size: $O2SIZE}] and .library_changed == []) and
	 (.flash_bytes.new - .flash_bytes.old == $((O2SIZE - OLDSIZE))) and
	 (.findings | any(.rule == \"optimisation\" and .change == \"new\" and .new_severity == \"info\")) and
	 (.findings | any(.rule == \"capacity\" and .change == \"changed\" and .old_severity == \"info\" and .new_severity == \"warning\")) and
	 .predicted_misses_per_echo == {old: 166.7, new: 2904.0}"
keys_documented "triage --compare" "$W/cmp.json"
triage --compare "$W/old.elf" >"$W/cmp.out"
expect "--compare text: findings, functions, code in flash" "$W/cmp.out" \
	'^triage of .*t\.elf against .*old\.elf$' "^  grew     fast_path: $OLDSIZE -> $O2SIZE bytes" \
	"^code in flash [0-9]+ -> [0-9]+ bytes \\(\\+$((O2SIZE - OLDSIZE))," '^predicted misses per echo: not computed'
check_fails "--old-trace without --compare is a usage error" "go with --compare" triage --old-trace "$W/big.trace"

# 7. text output; bad inputs
triage --samples "$W/bytes.txt" >"$W/bytes.out"
expect "the text report: severity, rule, evidence, fix" "$W/bytes.out" \
	'^triage of .*t\.elf with its map$' '^severe +byte-loops: 80\.0 % of the busy time' \
	'^  evidence  copy_bytes: ' '^  fix       use word-at-a-time'
triage >"$W/none.out"
expect "without samples: the rules that need them say so" "$W/none.out" \
	'no samples: the rules that need them were not checked' '^not checked  conflicting-sets: no samples'
printf 'garbage\n' >"$W/bad.txt"
check_fails "a bad sample file is refused with its line" "bad.txt:1" triage --samples "$W/bad.txt"
check_fails "a bad --xip-ctrl is a usage error" "needs a 32-bit value .got '0x1FFFFFFFF'" triage --xip-ctrl 0x1FFFFFFFF
head -c 100 "$ELF" >"$W/trunc.elf"
check_fails "a truncated ELF is refused" "trunc.elf" "$XIPBENCH" triage "$W/trunc.elf"
printf 'echo\nnot-an-address\n' >"$W/bad.trace"
check_fails "a bad trace is refused with its line" "bad.trace:2" triage --trace "$W/bad.trace"

# 10. the MPU (imxrt1062: a Cortex-M7 whose flash, FlexSPI at 0x60000000, is cacheable only
# as the MPU says): the same code linked there, the registers as a dump. Region 3 covers
# 0x60000000 with TEX=001 C=0 B=0 (Normal, non-cacheable: ARMv7-M ARM table B3-13), then the
# same region with C=1 B=1 (write-back).
sed 's/ORIGIN = 0x10000000/ORIGIN = 0x60000000/' "$S/triage.ld" >"$W/rt.ld"
arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -nostdlib -T "$W/rt.ld" -o "$W/rt.elf" "$W/app.o" "$W/fast.o" ||
	not_ok "the image links at 0x60000000"
rt_addr() { arm-none-eabi-nm "$W/rt.elf" | awk -v n="$1" '$3 == n { print $1 }'; }
{
	printf 'busy-seconds 1\nidle-seconds 1\n'
	i=0
	while [ $i -lt 600 ]; do printf '0x%s\n' "$(rt_addr copy_words)"; i=$((i + 1)); done
} >"$W/rt.txt"
printf 'MPU_TYPE 0x800\nMPU_CTRL 0x5\nCCR 0x70200\nREGION 3 RBAR 0x60000013 RASR 0x0308002D\n' >"$W/nc.mpu"
printf 'MPU_TYPE 0x800\nMPU_CTRL 0x5\nCCR 0x70200\nREGION 3 RBAR 0x60000013 RASR 0x030B002D\n' >"$W/wb.mpu"
"$XIPBENCH" triage "$W/rt.elf" --target imxrt1062 --samples "$W/rt.txt" --mpu "$W/nc.mpu" --json >"$W/nc.json" 2>"$W/nc.err"
jq_on "$W/nc.json" "MPU: hot code in a non-cacheable region is a severe cache-off, with the region" 	'(.findings[] | select(.rule == "cache-off") | .severity == "severe" and
	  (.summary | test("100.0 % of the busy time runs from flash the MPU maps non-cacheable")) and
	  (.evidence | any(test("^copy_words at 0x6[0-9a-f]{7} \\(100.0 %\\): region 3"))))'
"$XIPBENCH" triage "$W/rt.elf" --target imxrt1062 --samples "$W/rt.txt" --mpu "$W/wb.mpu" --json >"$W/wb.json" 2>"$W/wb.err"
jq_on "$W/wb.json" "MPU: the same region write-back: no cache-off finding" 	'[.findings[] | select(.rule == "cache-off")] | length == 0'
printf 'MPU_TYPE 0x800\nMPU_CTRL 0x5\nCCR 0x00200\nREGION 3 RBAR 0x60000013 RASR 0x030B002D\n' >"$W/icoff.mpu"
"$XIPBENCH" triage "$W/rt.elf" --target imxrt1062 --samples "$W/rt.txt" --mpu "$W/icoff.mpu" --json >"$W/icoff.json" 2>"$W/icoff.err"
jq_on "$W/icoff.json" "MPU: CCR.IC = 0: the instruction cache is off" 	'.findings | any(.rule == "cache-off" and .severity == "severe" and (.summary | test("instruction cache is off")))'
check_fails "--mpu on a target without an MPU rule is refused" "mpu = none" triage --mpu "$W/nc.mpu"
printf 'MPU_TYPE zz\n' >"$W/bad.mpu"
check_fails "a bad MPU dump is refused with its line" "bad.mpu:1" \
	"$XIPBENCH" triage "$W/rt.elf" --target imxrt1062 --mpu "$W/bad.mpu"
finish
