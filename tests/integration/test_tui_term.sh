#!/bin/sh
# test_tui_term: tui/term.c in a real terminal: tmux runs `test_tui_term --interactive`
# (tests/unit/test_tui_term.c) in a detached 80x24 session; the drawn screen is read back
# with capture-pane, keys and mouse events are sent with send-keys and the names the program
# logs are checked; quitting, a crash (abort) and NO_COLOR and ASCII runs must each leave the
# terminal as it was (normal screen, cursor shown, mouse reporting off).
. tests/integration/lib.sh

BIN="$XB_BUILD/tests/test_tui_term"
if ! command -v tmux >/dev/null 2>&1; then
	echo "ok 1 # SKIP tmux is not installed"
	exit 0
fi
if [ ! -x "$BIN" ]; then
	not_ok "$BIN is not built"
	finish
	exit
fi

W=$XB_WORK
. tests/tui/tmux.sh
log_has() { grep -qxF -- "$2" "$XB_WORK/$1.log"; }

# start NAME ENV...: a session whose pane prints a line, runs the program with ENV, prints
# its exit status and waits (so that the pane stays to be looked at).
start() {
	name=$1
	shift
	cat >"$XB_WORK/$name.sh" <<EOF
printf 'shell before\n'
env $* "$BIN" --interactive "$XB_WORK/$name.log"
echo "exit status \$?"
exec cat
EOF
	T new-session -d -s "$name" -x 80 -y 24 "sh '$XB_WORK/$name.sh'"
}

# expect_restored NAME STATUS: the program ended with STATUS and the terminal is back.
expect_restored() {
	if wait_for 10 pane_has "$1" "exit status $2"; then ok "$1: exits with status $2"; else
		not_ok "$1: no 'exit status $2'"
		pane "$1" | sed 's/^/# /'
	fi
	pane_has "$1" "shell before" && ok "$1: the shell's screen is back" ||
		not_ok "$1: the screen from before is gone"
	[ "$(flag "$1" alternate_on)" = 0 ] && ok "$1: alternate screen left" ||
		not_ok "$1: still on the alternate screen"
	[ "$(flag "$1" cursor_flag)" = 1 ] && ok "$1: cursor shown" || not_ok "$1: cursor hidden"
	m="$(flag "$1" mouse_standard_flag)$(flag "$1" mouse_button_flag)$(flag "$1" mouse_sgr_flag)"
	[ "$m" = 000 ] && ok "$1: mouse reporting off" || not_ok "$1: mouse reporting left on"
}

# ---- UTF-8, colours, keys, mouse, resize, quit ----
start main LC_ALL=C.UTF-8
if wait_for 10 log_has main "open 80x24 colours 256 utf8 1"; then
	ok "opens 80x24 at 256 colours, UTF-8"
else
	not_ok "did not open as expected"
	sed 's/^/# /' "$XB_WORK/main.log" 2>/dev/null
fi
if wait_for 10 pane_has main "last key: none"; then ok "draws its screen"; else
	not_ok "nothing drawn"
	pane main | sed 's/^/# /'
fi
pane main >"$XB_WORK/screen.txt"
expect "box drawing and blocks in UTF-8" "$XB_WORK/screen.txt" \
	'^┌┤ xipbench term test ├─+┐$' '^│ normal text +│$' '^│ bar █{11} +│$' \
	'^│  ▁▂▃▄▅▆▇█ +│$' '^└─+┘$' '^│ q quits, ! aborts +│$'
[ "$(sed -n 24p "$XB_WORK/screen.txt" | wc -m)" -eq 81 ] && ok "rows are 80 columns" ||
	not_ok "row 24 is $(sed -n 24p "$XB_WORK/screen.txt" | wc -m) characters"
T capture-pane -e -p -t main >"$XB_WORK/screen.esc"
expect "the dark theme in 256 colours" "$XB_WORK/screen.esc" '38;5;75m' '38;5;81m'
[ "$(flag main alternate_on)" = 1 ] && ok "runs on the alternate screen" ||
	not_ok "not on the alternate screen"
[ "$(flag main cursor_flag)" = 0 ] && ok "cursor hidden while running" || not_ok "cursor shown"
[ "$(flag main mouse_standard_flag)" = 1 ] && ok "mouse reporting on" ||
	not_ok "mouse reporting off while running"

T send-keys -t main a Up Down Left Right Tab BTab Enter F1 F12 Home End PPage NPage IC DC \
	BSpace C-l Space '<' '#' ':'
T send-keys -t main -l 'é─'
T send-keys -t main z
wait_for 10 log_has main "key z"
T send-keys -t main Escape
wait_for 10 log_has main "key <Esc>"
T send-keys -t main M-x y # Alt+x is no key: dropped
wait_for 10 log_has main "key y"
grep '^key ' "$XB_WORK/main.log" | sed 's/^key //' | tr '\n' ' ' >"$XB_WORK/keys.txt"
want='a <Up> <Down> <Left> <Right> <Tab> <S-Tab> <Enter> <F1> <F12> <Home> <End> <PageUp> '
want="$want<PageDown> <Insert> <Del> <BS> <C-l> <Space> <lt> # : é ─ z <Esc> y "
if [ "$(cat "$XB_WORK/keys.txt")" = "$want" ]; then ok "keys read with their names"; else
	not_ok "keys read: $(cat "$XB_WORK/keys.txt")"
	echo "# wanted:    $want"
fi
wait_for 10 pane_has main "last key: y" && ok "the screen follows the keys" ||
	not_ok "screen not redrawn"

# mouse (the pane's TERM reports X10 style: ESC [ M, button+32, column+33, row+33)
T send-keys -t main -H 1b 5b 4d 20 2a 25 1b 5b 4d 23 2a 25
wait_for 10 log_has main "key <Mouse> 1 9,4" && ok "a click at column 9, row 4" ||
	not_ok "no click: $(tail -n 1 "$XB_WORK/main.log")"
T send-keys -t main -H 1b 5b 4d 60 21 21
wait_for 10 log_has main "key <Mouse> 3 0,0" && ok "wheel up" || not_ok "no wheel up"
T send-keys -t main -H 1b 5b 4d 61 22 23
wait_for 10 log_has main "key <Mouse> 4 1,2" && ok "wheel down" || not_ok "no wheel down"

T resize-window -t main -x 100 -y 30
wait_for 10 log_has main "key <Resize> 100x30" && ok "resize reported" || not_ok "no resize"
if wait_for 10 pane_has main "size 100x30"; then
	pane main | head -n 1 >"$XB_WORK/top.txt"
	expect "redrawn at the new size" "$XB_WORK/top.txt" '^┌┤ xipbench term test ├─{76}┐$'
else
	not_ok "not redrawn at the new size"
fi
T send-keys -t main q
expect_restored main 0
log_has main closed && ok "closed cleanly" || not_ok "no 'closed' in the log"

# ---- a crash restores the terminal and keeps the signal's exit status ----
start crash LC_ALL=C.UTF-8
wait_for 10 pane_has crash "last key: none"
T send-keys -t crash '!'
expect_restored crash 134

# ---- NO_COLOR: attributes only ----
start nocolour LC_ALL=C.UTF-8 NO_COLOR=1
wait_for 10 log_has nocolour "open 80x24 colours 0 utf8 1" && ok "NO_COLOR: no colours" ||
	not_ok "NO_COLOR: $(head -n 1 "$XB_WORK/nocolour.log")"
wait_for 10 pane_has nocolour "last key: none"
T capture-pane -e -p -t nocolour >"$XB_WORK/nocolour.esc"
if grep -q "38;5;" "$XB_WORK/nocolour.esc" || grep -q '\[3[0-7]m' "$XB_WORK/nocolour.esc"; then
	not_ok "NO_COLOR: colours drawn"
else
	ok "NO_COLOR: no colour sequences"
fi
expect "NO_COLOR: the monochrome attributes (bold title)" "$XB_WORK/nocolour.esc" '\[1m'
T send-keys -t nocolour q
expect_restored nocolour 0

# ---- a locale that is not UTF-8: boxes and blocks in ASCII ----
start ascii LC_ALL=C
wait_for 10 log_has ascii "open 80x24 colours 256 utf8 0" && ok "C locale: not UTF-8" ||
	not_ok "C locale: $(head -n 1 "$XB_WORK/ascii.log")"
if wait_for 10 pane_has ascii "last key: none"; then
	pane ascii >"$XB_WORK/ascii.txt"
	expect "C locale: ASCII boxes and blocks" "$XB_WORK/ascii.txt" \
		'^\+\+ xipbench term test \+-+\+$' '^\| bar #{11} +\|$' '^\|  \.\.:::###  +\|$' \
		'^\+-+\+$'
else
	not_ok "C locale: nothing drawn"
fi
T send-keys -t ascii q
expect_restored ascii 0

finish
