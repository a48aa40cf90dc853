# test_experiment: `xipbench experiment --quick` on the echo firmware: every step runs
# (builds, profiles through the virtual probe, plans, relinks, flashes through the probe,
# measures), the study's qualitative results hold on the virtual Pico, the planner's
# predictions of flash-only layouts are within 5 % of the measurements, the runs are in
# runs.db, and the same experiment gives the same numbers. Failures are clear.
. tests/integration/lib.sh
W=$XB_WORK

# jq_check DESCRIPTION JQ-EXPRESSION: passes when the expression is true on the JSON.
jq_check() {
	if jq -e "$2" "$W/q.json" >/dev/null 2>&1; then ok "$1"; else
		not_ok "$1"
		jq -c '.rows[] | {layout, misses_per_echo, predicted_misses_per_echo, turnaround_ms,
			peak_udp_echo_per_s, footprint_lines, extra_ram_bytes}' "$W/q.json" 2>&1 |
			sed 's/^/# /' | head -n 20
	fi
}
m() { echo ".rows[] | select(.layout == \"$1\") | .$2"; }

if ! "$XIPBENCH" experiment --quick --pcaps --json --out "$W/exp" >"$W/q.json" 2>"$W/q.err"; then
	not_ok "experiment --quick runs"
	sed 's/^/# /' "$W/q.err" | tail -n 30
	finish
	exit
fi
ok "experiment --quick runs"
sed 's/^/# /' "$W/q.err" | grep -E 'misses per echo' | head -n 20

jq_check "rows: stock, lto, hot, colour, xip-off, colour-sram-4k, colour-sram-12k" \
	'[.rows[].layout] == ["stock","lto","hot","colour","xip-off","colour-sram-4k","colour-sram-12k"]'
jq_check "every row has the keys the issue names" \
	'all(.rows[]; has("layout") and has("extra_ram_bytes") and has("misses_per_echo") and
	 has("predicted_misses_per_echo") and has("opt_bound_misses_per_echo") and
	 has("turnaround_ms") and has("peak_udp_echo_per_s") and has("footprint_lines"))'
jq_check "every ping of every row was answered (60 of 60)" \
	'all(.rows[]; .pings_sent == 60 and .pings_replied == 60)'
jq_check "every row answered UDP echoes" 'all(.rows[]; .udp_replied > 0)'
jq_check "the per-ping footprint of the stock build is above the cache's 2,048 lines" \
	"($(m stock footprint_lines)) > .cache_lines"
jq_check "colouring beats the hot block beats stock (misses per echo)" \
	"($(m colour misses_per_echo)) < ($(m hot misses_per_echo)) and
	 ($(m hot misses_per_echo)) < ($(m stock misses_per_echo))"
jq_check "LTO reduces misses per echo" \
	"($(m lto misses_per_echo)) < ($(m stock misses_per_echo))"
jq_check "misses fall as the SRAM budget grows (colour, + 4 KB, + 12 KB)" \
	"($(m colour-sram-4k misses_per_echo)) < ($(m colour misses_per_echo)) and
	 ($(m colour-sram-12k misses_per_echo)) < ($(m colour-sram-4k misses_per_echo))"
jq_check "the SRAM layouts use about their budget" \
	"($(m colour-sram-4k extra_ram_bytes)) > 3000 and ($(m colour-sram-4k extra_ram_bytes)) <= 4096 and
	 ($(m colour-sram-12k extra_ram_bytes)) <= 12288"
jq_check "XIP_CACHE=off is far slower: turnaround over 5 times stock's" \
	"($(m xip-off turnaround_ms)) > 5 * ($(m stock turnaround_ms))"
jq_check "the peak UDP echo rate grows from stock to colour + 12 KB in SRAM" \
	"($(m colour-sram-12k peak_udp_echo_per_s)) > ($(m stock peak_udp_echo_per_s))"
for l in stock lto hot colour colour-sram-4k colour-sram-12k; do
	jq_check "$l: predicted misses per echo within 5 % of measured" \
		"(($(m $l predicted_misses_per_echo)) - ($(m $l misses_per_echo)) | fabs) <=
		 0.05 * ($(m $l misses_per_echo))"
done
# the stock row's OPT bound is its prediction less what OPT saves over LRU, as
# `xipbench cache` counts both on the same profile trace
"$XIPBENCH" cache --trace "$W/exp/profiles/ping.trace" --json >"$W/cache.json" 2>&1
saved=$(jq '.misses_per_echo - .opt_misses_per_echo' "$W/cache.json" 2>/dev/null)
jq_check "stock's OPT bound = its prediction - the misses OPT saves in xipbench cache ($saved)" \
	"(($(m stock predicted_misses_per_echo)) - ${saved:-0} - ($(m stock opt_bound_misses_per_echo)) | fabs) < 0.01 and ${saved:-0} > 100"
jq_check "stock's OPT bound is well above zero: one ping's code does not fit in the cache" \
	"($(m stock opt_bound_misses_per_echo)) > 100"
keys_documented experiment "$W/q.json"

# the stock measurement's usbmon capture, read by tshark with checksum validation on: every
# frame well formed, every IPv4, ICMP and UDP checksum valid, the 60 pings and the
# footprint's ping answered, as many UDP echoes from port 7 as the JSON counts
if command -v tshark >/dev/null 2>&1; then
	tshark -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -r "$W/exp/captures/stock.pcap" \
		-T fields -E separator='|' -E occurrence=a -e icmp.type -e ip.checksum.status \
		-e icmp.checksum.status -e udp.checksum.status -e udp.srcport -e usb.urb_type \
		-e _ws.expert.severity >"$W/stock.f" 2>"$W/tshark.err"
	got=$(awk -F'|' '
		$1 == 8 && $6 == "'"'S'"'" { req++ }
		$1 == "0" && $6 == "'"'C'"'" { rep++ }
		$5 == 7 && $6 == "'"'C'"'" { udp++ }
		$2 != "" { ip++ }
		$2 == 1 && ($1 == "" || $3 == 1) && ($4 == "" || $4 == 1) { good++ }
		$2 == "0" || $3 == "0" || $4 == "0" { bad++ }
		$7 ~ /8388608/ { malformed++ }
		END { print req + 0, rep + 0, udp + 0, (ip == good && ip > 0) ? "all-valid" : ip "/" good,
			bad + 0, malformed + 0 }' "$W/stock.f")
	want="61 61 $(jq -r "$(m stock udp_replied)" "$W/q.json") all-valid 0 0"
	[ "$got" = "$want" ] && ok "tshark on the stock capture: 61 pings and replies, every checksum valid, UDP replies as counted" ||
		not_ok "tshark on the stock capture: '$got', expected '$want'"
else
	echo "ok - # SKIP tshark is not installed"
fi

n=$(sqlite3 "$W/exp/runs.db" "select count(*) from runs where bench = 'virtual'" 2>&1)
[ "$n" = 7 ] && ok "runs.db holds the 7 runs" || not_ok "runs.db holds the 7 runs (got '$n')"
hash=$(jq -r "$(m colour image_hash)" "$W/q.json")
db=$(sqlite3 "$W/exp/runs.db" "select image_hash, layout, variant, round(misses_per_echo, 3) from runs where layout = 'colour'")
want="$hash|colour|stock|$(jq -r "$(m colour misses_per_echo) | . * 1000 | round / 1000" "$W/q.json")"
[ "$db" = "$want" ] && ok "runs.db: the colour run's hash, variant and misses" ||
	not_ok "runs.db: '$db' is not '$want'"
[ "$hash" = "$(sha256sum "$W/exp/fw/default/layouts/colour/echo.elf" | cut -d' ' -f1)" ] &&
	ok "the image hash is the relinked ELF's SHA-256" || not_ok "image hash $hash"

# the relinked image has the planned addresses (GNU ld placed them as predicted)
bad=$(arm-none-eabi-nm --defined-only "$W/exp/fw/default/layouts/colour/echo.elf" | awk '
	NR == FNR { if ($0 !~ /^#/ && NF >= 2) want[$2] = $1; next }
	$2 ~ /^[tT]$/ { seen[$3]++; at[$3] = $1 }
	END { for (f in want) if (seen[f] == 1) { checked++
		w = want[f]; sub(/^0x/, "", w); if (w != at[f]) n++ }
	      print (checked > 100 ? n + 0 : "only " checked " checked") }' \
	"$W/exp/layouts/colour/addresses.txt" -)
[ "$bad" = 0 ] && ok "the coloured image's functions are where the plan put them" ||
	not_ok "$bad functions of the coloured image are elsewhere"

# the same experiment again (builds reused): the same measurements
"$XIPBENCH" experiment --quick --json --layouts stock,colour --out "$W/exp" >"$W/r.json" 2>"$W/r.err"
a=$(jq -c '[.rows[] | select(.layout == "stock" or .layout == "colour") |
	{layout, misses_per_echo, turnaround_ms, peak_udp_echo_per_s, footprint_lines}]' "$W/q.json")
b=$(jq -c '[.rows[] | {layout, misses_per_echo, turnaround_ms, peak_udp_echo_per_s, footprint_lines}]' "$W/r.json")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "a second run measures the same numbers" ||
	not_ok "a second run differs: $a vs $b"
n=$(sqlite3 "$W/exp/runs.db" "select count(*) from runs")
[ "$n" = 9 ] && ok "runs.db keeps the earlier runs and adds the new ones" || not_ok "runs.db has $n runs"

# failures: a firmware folder without a Makefile, a build that fails, an unknown layout
mkdir -p "$W/nofw"
check_fails "a firmware folder without a Makefile" "no Makefile" \
	"$XIPBENCH" experiment --quick --firmware "$W/nofw" --out "$W/e2"
mkdir -p "$W/badfw"
printf 'all:\n\t@echo "boom: deliberately broken"; exit 1\n' >"$W/badfw/Makefile"
check_fails "a failing build names the step and the log" "build.*failed.*build.log" \
	"$XIPBENCH" experiment --quick --firmware "$W/badfw" --out "$W/e3" --layouts stock
check_fails "an output folder make cannot take is refused before anything runs" \
	"make cannot take a folder.*--out" "$XIPBENCH" experiment --quick --out "$W/with space"
[ ! -e "$W/with space" ] && ok "... and nothing was created" || not_ok "the refused folder was created"
check_fails "an unknown layout is a usage error" "unknown layout 'nope'" \
	"$XIPBENCH" experiment --layouts nope
finish
