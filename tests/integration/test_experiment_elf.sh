# test_experiment_elf: `xipbench experiment --elf` on an image it did not build: the echo
# firmware's stock ELF and map (built by a regular experiment first) given as a foreign
# image. The stock row measured as given matches the regular experiment's stock row figure
# for figure (same method, same virtual time); without a build command the planned rows
# are predictions only, marked so, equal to the regular experiment's predictions and kept
# out of the history; without --udp-port the UDP rate is left out with a note and the
# other figures do not change, and a port given is the one the sweep uses; with a build
# command (a make template) the layouts are relinked and measured like the regular
# experiment's, to the same image bytes. Bad images and options are clear errors.
. tests/integration/lib.sh
W=$XB_WORK
FW=$PWD/firmware

# what a failing check shows: the rows' figures
JQ_SHOW='.rows[]? | {layout, measured, misses_per_echo, predicted_misses_per_echo, turnaround_ms,
	peak_udp_echo_per_s, footprint_lines}'
row() { echo ".rows[] | select(.layout == \"$1\")"; }

# 1. the regular experiment: the echo firmware built, its stock, hot and colour rows measured
if ! "$XIPBENCH" experiment --quick --json --layouts stock,hot,colour --out "$W/reg" >"$W/reg.json" 2>"$W/reg.err"; then
	not_ok "the regular experiment runs"
	sed 's/^/# /' "$W/reg.err" | tail -n 20
	finish
	exit
fi
ok "the regular experiment runs (stock, hot, colour)"
ELF=$W/reg/fw/default/echo.elf
MAP=$W/reg/fw/default/echo.map

# 2. the same ELF as a foreign image: stock measured, the layouts predicted only
if ! "$XIPBENCH" experiment --quick --json --elf "$ELF" --map "$MAP" --device-ip 192.0.2.1 --udp-port 7 \
	--layouts stock,hot,colour,colour-sram-4k --out "$W/ext" >"$W/ext.json" 2>"$W/ext.err"; then
	not_ok "experiment --elf runs"
	sed 's/^/# /' "$W/ext.err" | tail -n 20
	finish
	exit
fi
ok "experiment --elf FILE --map FILE --device-ip 192.0.2.1 --udp-port 7 runs"
jq -n --slurpfile r "$W/reg.json" --slurpfile e "$W/ext.json" '
	def figs: {misses_per_echo, predicted_misses_per_echo, opt_bound_misses_per_echo, turnaround_ms,
		peak_udp_echo_per_s, footprint_lines, pings_sent, pings_replied, udp_sent, udp_replied,
		idle_window_misses, traffic_window_misses, flashed_bytes, image_hash};
	($r[0].rows[] | select(.layout == "stock") | figs) as $a |
	($e[0].rows[] | select(.layout == "stock") | figs) as $b |
	{same: ($a == $b), a: $a, b: $b}' >"$W/stock-cmp.json"
jq_on "$W/stock-cmp.json" "the stock row measured as a foreign image equals the regular stock row, figure for figure" \
	'.same and .a.misses_per_echo > 1000 and .a.peak_udp_echo_per_s > 0' ||
	sed 's/^/# /' "$W/stock-cmp.json" | head -n 5
jq_on "$W/ext.json" "the stock row is measured, its image the copy of the given ELF" \
	"($(row stock) | .measured == true and (.image | endswith(\"/ext/image/echo.elf\")) and .label == \"Stock\")"
[ "$(jq -r "$(row stock) | .image_hash" "$W/ext.json")" = "$(sha256sum "$ELF" | cut -d' ' -f1)" ] &&
	ok "the stock row's hash is the given ELF's SHA-256" || not_ok "stock image_hash"
jq_on "$W/ext.json" "hot, colour and colour-sram-4k are predicted only: no measured figure, no image" \
	'[.rows[] | select(.layout != "stock")] | length == 3 and all(.[]; .measured == false and
	 .misses_per_echo == null and .turnaround_ms == null and .peak_udp_echo_per_s == null and
	 .footprint_lines == null and .image == null and .image_hash == null and .pings_sent == 0 and
	 .predicted_misses_per_echo > 0 and .opt_bound_misses_per_echo > 0 and
	 (.label | endswith("(predicted only)")))'
for l in hot colour; do
	a=$(jq "$(row $l) | [.predicted_misses_per_echo, .opt_bound_misses_per_echo]" "$W/reg.json" | tr -d ' \n')
	b=$(jq "$(row $l) | [.predicted_misses_per_echo, .opt_bound_misses_per_echo]" "$W/ext.json" | tr -d ' \n')
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "$l: the prediction equals the regular experiment's ($b)" ||
		not_ok "$l: predicted $b, the regular experiment's $a"
done
jq_on "$W/ext.json" "colour + 4 KB: the plan's extra RAM is about its budget" \
	"($(row colour-sram-4k) | .extra_ram_bytes > 3000 and .extra_ram_bytes <= 4096)"
jq_on "$W/ext.json" "the image's keys: elf, map, device, UDP port, no build command, a note on the predicted rows" \
	".elf == \"$ELF\" and .map == \"$MAP\" and .device_ip == \"192.0.2.1\" and .peer_ip == null and
	 .dhcp == false and .udp_port == 7 and .build_command == null and .not_planned == [] and
	 (.notes | any(test(\"predicted only.*nothing in them was measured\")))"
n=$(sqlite3 "$W/ext/runs.db" "select group_concat(layout) from runs" 2>&1)
[ "$n" = stock ] && ok "runs.db holds the measured stock run only, not the predictions" ||
	not_ok "runs.db holds '$n'"
keys_documented "experiment --elf" "$W/ext.json"

# 3. the tables, without --udp-port: the rate left out with a note, nothing else changes
if "$XIPBENCH" experiment --quick --elf "$ELF" --layouts stock,hot --out "$W/txt" >"$W/txt.out" 2>"$W/txt.err"; then
	ok "experiment --elf without --udp-port prints the tables"
else
	not_ok "experiment --elf without --udp-port (exit $?)"
	sed 's/^/# /' "$W/txt.err" | tail -n 10
fi
m=$(jq -r "$(row stock) | .misses_per_echo * 10 | round / 10" "$W/reg.json")
t=$(jq -r "$(row stock) | .turnaround_ms" "$W/reg.json")
expect "the stock line: the regular misses per echo and turnaround; hot marked predicted only with no measured figure" \
	"$W/txt.out" "^Stock +$m .* $(printf '%.3f' "$t") ms" \
	"^Hot block \(predicted only\) +- +[0-9]+\.[0-9] +[0-9]+\.[0-9] +- +-$" \
	"^Stock +0\.0 KB +- +$(printf '%.3f' "$t") ms +$m " \
	"Peak UDP echo rate: not measured \(no --udp-port" "^Method: .* pings " "measured as given"
if grep -q "UDP echo:" "$W/txt.out"; then not_ok "the method claims a UDP sweep that was not run"; else
	ok "the method paragraph has no UDP sweep"; fi

# the UDP port is the one given: the echo firmware echoes on 7 alone, so port 9 answers nothing
"$XIPBENCH" experiment --quick --json --elf "$ELF" --udp-port 9 --layouts stock --out "$W/p9" >"$W/p9.json" 2>"$W/p9.err"
jq_on "$W/p9.json" "--udp-port 9: the sweep goes to port 9, where the echo firmware answers nothing" \
	".udp_port == 9 and ($(row stock) | .udp_sent > 1000 and .udp_replied == 0 and .peak_udp_echo_per_s == 0 and
	 .misses_per_echo == $(jq "$(row stock) | .misses_per_echo" "$W/reg.json"))"

# 4. a build command: the layouts relinked (make, as a template) and measured, to the
# regular experiment's image bytes and figures
TPL="make -C $FW --no-print-directory BUILD_DIR=$W/reg/fw LAYOUT={layout_dir} ELF_OUT={elf}"
if "$XIPBENCH" experiment --quick --json --elf "$ELF" --udp-port 7 --layouts stock,hot \
	--build-command "$TPL" --out "$W/cmd" >"$W/cmd.json" 2>"$W/cmd.err"; then
	ok "experiment --elf --build-command TEMPLATE runs"
else
	not_ok "experiment --elf --build-command TEMPLATE (exit $?)"
	sed 's/^/# /' "$W/cmd.err" | tail -n 10
fi
a=$(jq -c "$(row hot) | {misses_per_echo, turnaround_ms, peak_udp_echo_per_s, footprint_lines, image_hash}" "$W/reg.json")
b=$(jq -c "$(row hot) | {misses_per_echo, turnaround_ms, peak_udp_echo_per_s, footprint_lines, image_hash}" "$W/cmd.json")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "hot relinked by the template: the regular experiment's image and figures" ||
	not_ok "hot: $b, the regular experiment's $a"
jq_on "$W/cmd.json" "the relinked row is measured, its image in DIR/images/, the template in the output" \
	"($(row hot) | .measured == true and .label == \"Hot block\" and (.image | endswith(\"/cmd/images/hot.elf\")))
	 and .build_command == \"$TPL\""
n=$(sqlite3 "$W/cmd/runs.db" "select group_concat(layout) from runs" 2>&1)
[ "$n" = "stock,hot" ] && ok "runs.db holds both measured runs" || not_ok "runs.db holds '$n'"

# 5. failures, before anything runs
check_fails "a missing --elf is a clear error" "experiment: $W/none.elf: No such file" \
	"$XIPBENCH" experiment --quick --elf "$W/none.elf" --out "$W/bad1"
[ ! -e "$W/bad1" ] && ok "... and nothing was created" || not_ok "the output folder was created"
echo "not an image" >"$W/text.elf"
check_fails "a file that is not an ELF" "text.elf: not an ELF file" \
	"$XIPBENCH" experiment --quick --elf "$W/text.elf" --out "$W/bad2"
check_fails "an ELF of another machine" "expected a 32-bit ARM" \
	"$XIPBENCH" experiment --quick --elf /bin/sh --map "$MAP" --out "$W/bad2"
mkdir -p "$W/nomap" && cp "$ELF" "$W/nomap/"
check_fails "an ELF without its map names the option" "no map file found.*--map" \
	"$XIPBENCH" experiment --quick --elf "$W/nomap/echo.elf" --out "$W/bad3"
check_fails "a layout the image cannot have is a usage error" "layout 'lto' needs the echo firmware" \
	"$XIPBENCH" experiment --elf "$ELF" --layouts stock,lto
check_fails "--firmware with --elf is a usage error" "experiment: --firmware .*not with another image" \
	"$XIPBENCH" experiment --elf "$ELF" --firmware "$FW"
check_fails "the image's options need an image" "experiment: --udp-port goes with another image" \
	"$XIPBENCH" experiment --udp-port 7
check_fails "a bad --device-ip" "experiment: --device-ip needs an IPv4 address \(got '192.0.2'\)" \
	"$XIPBENCH" experiment --elf "$ELF" --device-ip 192.0.2
check_fails "a template with an open quote names the column" "experiment: --build-command: .*column" \
	"$XIPBENCH" experiment --elf "$ELF" --build-command "make 'x"
check_fails "--udp-port 0" "experiment: --udp-port needs a port" "$XIPBENCH" experiment --elf "$ELF" --udp-port 0
finish
