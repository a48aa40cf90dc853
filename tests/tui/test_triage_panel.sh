#!/bin/sh
# test_triage_panel: the triage panel in a real terminal (tmux) on the virtual Pico running the demo
# echo firmware: 8 and :triage show it; the findings are listed with their severities, the
# rules not checked at the end; the selected finding's evidence, fix and command below the
# list; the selection moves and the detail follows; T on a finding without a command says so;
# after the planning profile (P) the trace rules look too, and T on the capacity finding runs
# its ':preset sram SIZE' and starts the loop (cancelled with X).
. tests/integration/lib.sh

if ! command -v tmux >/dev/null 2>&1; then
	echo "ok 1 # SKIP tmux is not installed"
	exit 0
fi
W=$XB_WORK
. tests/tui/tmux.sh
XDG="XDG_CACHE_HOME=$W/cache XDG_CONFIG_HOME=$W/config"

# the pane's text without the frame characters
plain() { pane "$1" | sed 's/[│┤├┌┐└┘─]/ /g'; }
# a finding's row: severity, rule, summary
ROW='^│(severe|warning|note|info) +[a-z]+(-[a-z]+)* +[^ │]'
# the detail's title: severity and rule alone on their row
TITLE='^│(severe|warning|note|info) [a-z]+(-[a-z]+)* *│$'
title() { pane tr | grep -E "$TITLE" | head -n 1 | sed 's/^│//; s/ *│$//'; }
title_is() { [ "$(title)" = "$1" ]; }
title_is_not() { [ "$(title)" != "$1" ]; }
findings_at_least() { [ "$(pane tr | grep -cE "$ROW")" -ge "$1" ]; }

start_pane tr 170 45 "$XDG" "\"$XIPBENCH\" workbench --no-config --udp-rate 0 --work-dir $W/work"
if wait_for 180 pane_matches tr 'running *│?$|running$'; then ok "tr: running on the demo firmware"; else
	not_ok "tr: never running"
	sed 's/^/# /' "$W/tr.err" | tail -n 5
fi
pane_has tr "8 Triage" && ok "tr: the tabs have 8 Triage" || not_ok "tr: no 8 Triage tab"

# ---- the findings of the live profile ----
keys tr 8
wait_for 10 pane_has tr "┤ Triage ├" && ok "tr: 8 shows the triage panel" || not_ok "tr: 8"
if wait_for 30 findings_at_least 2; then
	ok "tr: findings are listed with their severities"
else
	not_ok "tr: fewer than two findings with a severity"
	pane tr | sed 's/^/# /' | head -n 16
fi
pane tr | grep -E "$ROW" | sed 's/^│/# /; s/ *│$//'
# the live profile has no trace: the trace rules say so, dimmed at the end
pane_matches tr '│ +capacity +not checked: no trace' && pane_has tr "trace: none (P records one)" &&
	ok "tr: capacity is not checked without a trace, and the header says why" ||
	{ not_ok "tr: no 'capacity not checked'"; pane tr | sed 's/^/# /' | head -n 14; }
last_finding=$(pane tr | grep -nE "$ROW" | tail -n 1 | cut -d: -f1)
first_skip=$(pane tr | grep -nE '│ +[a-z-]+ +not checked: ' | head -n 1 | cut -d: -f1)
[ -n "$last_finding" ] && [ -n "$first_skip" ] && [ "$first_skip" -gt "$last_finding" ] &&
	ok "tr: the rules not checked come after the findings" ||
	not_ok "tr: not checked at row '$first_skip', last finding at row '$last_finding'"
# the selected (first) finding's detail below the list: its evidence and fix
first=$(pane tr | grep -E "$ROW" | head -n 1 | awk '{ print $1 " " $2 }' | sed 's/^│//')
t1=$(title)
[ -n "$t1" ] && [ "$t1" = "$first" ] && ok "tr: the detail is of the selected finding ($t1)" ||
	not_ok "tr: detail '$t1', first row '$first'"
pane_matches tr '^│evidence {4}[^ ]' && pane_matches tr '^│fix {9}[^ ]' && pane_matches tr '^│try it {6}[^ ]' &&
	ok "tr: its evidence, fix and command are shown" ||
	{ not_ok "tr: no evidence or fix in the detail"; pane tr | sed 's/^/# /' | tail -n 20; }

# ---- moving the selection ----
second=$(pane tr | grep -E "$ROW" | sed -n 2p | awk '{ print $1 " " $2 }' | sed 's/^│//')
keys tr Down
wait_for 5 title_is "$second" &&
	ok "tr: Down selects the next finding and the detail follows ($second)" ||
	{ not_ok "tr: the detail did not follow to '$second'"; pane tr | sed 's/^/# /' | head -n 20; }
# Enter: the finding over the whole panel; Esc: the list again
keys tr Enter
rule2=${second#* }
wait_for 5 pane_has tr "┤ Triage · $rule2 ├" && pane_matches tr '^│summary {5}[^ ]' &&
	! pane_has tr "severity rule" && ok "tr: Enter opens the finding with its summary" ||
	not_ok "tr: Enter did not open $rule2"
keys tr Escape
wait_for 5 pane_has tr "severity rule" && ok "tr: Esc goes back to the list" || not_ok "tr: Esc"

# ---- T on a finding without a command ----
keys tr Home
n=0 found=""
wait_for 5 title_is "$first"
while [ $n -lt 12 ]; do
	if pane_has tr "try it      no workbench command tries this fix"; then found=$(title); break; fi
	was=$(title)
	keys tr Down
	wait_for 5 title_is_not "$was" || break # the last row
	n=$((n + 1))
done
if [ -n "$found" ]; then
	keys tr T
	wait_for 5 pane_has tr "${found#* }: no workbench command tries this fix" &&
		ok "tr: T on $found says it has no command to try" ||
		{ not_ok "tr: no message for T on $found"; pane tr | tail -n 2 | sed 's/^/# /'; }
	edit_loop_idle=$(pane tr | grep -c 'relinking\|the loop:')
	[ "$edit_loop_idle" -eq 0 ] && ok "tr: and starts nothing" || not_ok "tr: T without a command started something"
else
	not_ok "tr: no finding without a command to try T on"
fi

# ---- with the planning profile's trace: capacity, and T runs its preset and the loop ----
keys tr P
wait_for 180 pane_matches tr 'planning profile of stock: [0-9]+ PC samples and a fetch trace' &&
	ok "tr: P records the planning profile" || { not_ok "tr: no planning profile"; pane tr | tail -n 3 | sed 's/^/# /'; }
keys tr 1 ":triage" Enter
wait_for 10 pane_has tr "┤ Triage ├" && ok "tr: :triage shows the triage panel" || not_ok "tr: :triage"
wait_for 30 pane_has tr "trace: the planning profile's" &&
	wait_for 10 pane_matches tr '^│(severe|warning|note|info) +capacity +one echo touches' &&
	ok "tr: with the planning profile's trace the capacity rule looks" ||
	{ not_ok "tr: no capacity finding with the trace"; pane tr | sed 's/^/# /' | head -n 14; }
keys tr ":search capacity" Enter
wait_for 5 pane_matches tr '^│try it {6}:preset sram [0-9]+K' &&
	ok "tr: its command is a :preset sram SIZE" ||
	{ not_ok "tr: no :preset sram for capacity"; pane tr | sed 's/^/# /' | tail -n 12; }
preset=$(pane tr | sed -n 's/^│try it  *\(:preset sram [0-9]*K\).*/\1/p' | head -n 1)
keys tr T
wait_for 10 pane_has tr "the loop: relink, verify, flash, measure (after $preset" &&
	ok "tr: T ran '$preset' and started the loop" ||
	{ not_ok "tr: T did not start the loop"; pane tr | tail -n 2 | sed 's/^/# /'; }
keys tr X
wait_for 120 pane_matches tr 'running *│?$|running$' && ok "tr: X cancels the loop; the board runs on" ||
	{ not_ok "tr: not running after X"; pane tr | head -n 1 | sed 's/^/# /'; }
# the cache switched off over SWD: the triage reads XIP_CTRL again and says so
pane_matches tr 'XIP_CTRL 0x00000003' && ok "tr: the header gives XIP_CTRL as read over SWD (0x00000003)" ||
	{ not_ok "tr: no XIP_CTRL in the header"; pane tr | sed 's/^/# /' | head -n 4; }
keys tr ":xip-cache off" Enter
wait_for 30 pane_matches tr '^│severe +cache-off +the flash cache is off' &&
	wait_for 10 pane_matches tr 'XIP_CTRL 0x00000002' &&
	ok "tr: :xip-cache off: cache-off is severe from XIP_CTRL 0x00000002" ||
	{ not_ok "tr: no cache-off after :xip-cache off"; pane tr | sed 's/^/# /' | head -n 14; }
keys tr ":xip-cache on" Enter
wait_for 30 pane_matches tr 'XIP_CTRL 0x00000003' && ! pane_matches tr '^│severe +cache-off' &&
	ok "tr: :xip-cache on: the finding is gone" || not_ok "tr: cache-off stays after :xip-cache on"
keys tr q
restored tr 0
clean tr
finish
