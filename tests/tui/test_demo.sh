#!/bin/sh
# test_demo: `xipbench demo` plays the shipped study to its end without a terminal: its
# compare table shows colouring below stock, the SRAM rows falling and the non-allocating
# alias above the same 8 KB of SRAM with colouring (the study's finding), every figure of the
# last caption is one of the table's (measured, never text), and the runs are in the
# history; in a terminal (tmux), Space pauses the script and n plays its next step.
. tests/integration/lib.sh
W=$XB_WORK
export XDG_CACHE_HOME="$W/cache" XDG_CONFIG_HOME="$W/config"

if "$XIPBENCH" demo --headless --no-config --size 200x60 --dump "$W/end.dump" \
	--work-dir "$W/work" 2>"$W/demo.err"; then
	ok "the demo runs to its end"
else
	not_ok "the demo ended with status $?"
	tail -n 8 "$W/demo.err" | sed 's/^/# /'
fi
# the runs as recorded, and the compare table showing each of them
db="$W/work/runs.db"
m() { sqlite3 "$db" "SELECT misses_per_echo FROM runs WHERE layout = '$1' ORDER BY id DESC LIMIT 1"; }
# row_shows LAYOUT VALUE: the table's row of the run shows VALUE to its one decimal (compared
# as numbers: SQLite's printf rounds 91.45 up where C's gives 91.4)
row_shows() {
	grep -E "^\|│ +[0-9]+ +$1 " "$W/end.dump" | awk -v v="$2" '{
		for (i = 1; i <= NF; i++) { x = $i; gsub(",", "", x)
			if (x ~ /^[0-9]+\.[0-9]$/ && x - v <= 0.0501 && v - x <= 0.0501) f = 1 } }
		END { exit !f }'
}
stock=$(m stock) colour=$(m colour) s4=$(m sram-4k) s8=$(m sram-8k) s16=$(m sram-16k) off=$(m cache-off)
na=$(m noalloc-8k)
echo "# stock $stock, colour $colour, SRAM 4/8/16 KB $s4 $s8 $s16, 8 KB + no-allocate alias $na, cache off $off"
for r in "stock $stock" "colour $colour" "sram-4k $s4" "sram-8k $s8" "noalloc-8k $na" "sram-16k $s16" \
	"cache-off $off"; do
	set -- $r
	row_shows "$1" "$2" || missing="$missing $1"
done
[ -z "${missing:-}" ] && ok "the compare table shows every run with its measured misses per echo" ||
	not_ok "rows missing from the compare table:$missing"
# the study's findings, as measured here
lt() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
lt "$colour" "$stock" && ok "colouring ($colour) below stock ($stock)" ||
	not_ok "colouring ($colour) is not below stock ($stock)"
lt "$s8" "$s4" && lt "$s16" "$s8" && ok "the SRAM rows fall: 4 KB $s4, 8 KB $s8, 16 KB $s16" ||
	not_ok "the SRAM rows do not fall: $s4 $s8 $s16"
lt "$s8" "$na" && ok "the non-allocating alias ($na) is worse than colouring with the same 8 KB ($s8)" ||
	not_ok "the non-allocating alias ($na) is not above colouring with 8 KB of SRAM ($s8)"
# the last caption's figures are the table's (rounded as captions show them)
caption=$(grep -A1 'Demo (' "$W/end.dump" | tail -n 1)
echo "# $caption"
for pair in "stock $stock" "colouring $colour"; do
	set -- $pair
	want=$(awk -v v="$2" 'BEGIN { v = int(v + 0.5); printf v >= 1000 ? "%d,%03d" : "%d", v >= 1000 ? int(v / 1000) : v, v % 1000 }')
	echo "$caption" | grep -q "$1 $want" && ok "the caption's $1 figure is the measured $want" ||
		not_ok "the caption has no '$1 $want'"
done
n=$(sqlite3 "$db" 'SELECT count(*) FROM runs')
[ "$n" -ge 8 ] && ok "the history holds the demo's $n runs" || not_ok "the history holds $n runs"

# ---- In a terminal: Space pauses, n steps ----
if command -v tmux >/dev/null 2>&1; then
	. tests/tui/tmux.sh
	start_pane demo 160 48 "XDG_CACHE_HOME=$W/cache" "\"$XIPBENCH\" demo --no-config --work-dir $W/work2"
	wait_for 120 pane_has demo "Demo (Space pauses)" && ok "tmux: the demo shows its caption" ||
		not_ok "tmux: no caption"
	wait_for 120 pane_has demo "Where the CPU spends its time"
	keys demo Space
	wait_for 10 pane_has demo "paused: Space goes on, n steps" && ok "tmux: Space pauses the demo" ||
		not_ok "tmux: Space does not pause"
	keys demo n
	wait_for 30 pane_has demo "The cache: 1,024 sets" && ok "tmux: n plays the next step" ||
		{ not_ok "tmux: n does not step"; pane demo | tail -n 5 | sed 's/^/# /'; }
	keys demo q
	restored demo 0
fi
finish
