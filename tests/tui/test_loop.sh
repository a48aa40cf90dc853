#!/bin/sh
# test_loop: the workbench's edit loop in a real terminal (tmux) on the virtual Pico running
# the demo firmware: the planning profile, the colouring preset, then one key: relink, verify,
# flash, measure; the
# measured misses per echo within 5 % of the prediction shown before the relink and below
# the stock run's; both runs in the compare panel; going back restores the stock image and
# its layout. Failures keep the last good image running and measured, with the reason in the
# log: a layout whose SRAM overflows RAM (the link fails), a build command that exits 1, a
# relink that is not what the plan said. kill -9 during a measurement, then a restart, shows
# every committed run.
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

# ---- The loop on the demo firmware ----
start_pane loop 200 60 "$XDG" "\"$XIPBENCH\" workbench --no-config --udp-rate 0"
if wait_for 180 pane_matches loop 'running *│?$|running$'; then ok "loop: running"; else
	not_ok "loop: never running"
	sed 's/^/# /' "$W/loop.err" | tail -n 5
fi
keys loop 6
wait_for 10 pane_has loop "record a planning profile" &&
	ok "loop: the layout panel asks for a planning profile first" ||
	{ not_ok "loop: no hint about the planning profile"; pane loop | sed 's/^/# /' | head -n 14; }
keys loop P
wait_for 180 pane_matches loop 'planning profile of stock: [0-9]+ PC samples and a fetch trace' &&
	ok "loop: P records the planning profile (samples and a fetch trace)" ||
	{ not_ok "loop: no planning profile"; pane loop | sed 's/^/# /' | tail -n 5; }
keys loop ":preset colour" Enter
wait_for 120 pane_has loop "the colour preset fills the pending layout" &&
	ok "loop: the preset fills the pending layout" || not_ok "loop: the preset"
pred=$(plain loop | sed -n 's/^ *pending  *[^ ]*  *\([0-9][0-9.]*\) .*/\1/p' | head -n 1)
hot=$(plain loop | sed -n 's/^ *\([0-9][0-9]*\) hot .*/\1/p' | head -n 1)
echo "# before the relink: $hot functions in the hot block, predicted $pred misses per echo"
[ -n "$pred" ] && [ "${hot:-0}" -gt 0 ] && ok "loop: a prediction before the relink" ||
	{ not_ok "loop: no prediction shown"; pane loop | sed 's/^/# /' | head -n 14; }
keys loop ":loop colour1" Enter
if wait_for 300 pane_matches loop 'colour1: [0-9.]+ misses per echo measured'; then
	ok "loop: relinked, verified, flashed and measured"
else
	not_ok "loop: the loop did not end with a measurement"
	pane loop | sed 's/^/# /' | tail -n 8
	grep -E 'error|fail' "$W/loop.err" | head -n 5 | sed 's/^/# /'
fi
meas=$(plain loop | grep -oE 'colour1: [0-9.]+ misses per echo measured' | head -n 1 |
	sed 's/colour1: \([0-9.]*\).*/\1/')
awk -v a="$meas" -v b="$pred" 'BEGIN { exit !(a > 0 && b > 0 && (a - b) / b < 0.05 && (b - a) / b < 0.05) }' &&
	ok "loop: measured $meas misses per echo, within 5 % of the $pred predicted before" ||
	not_ok "loop: measured '$meas' against '$pred' predicted"
pane_matches loop '│ colour1 │' && ok "loop: the status bar names the flashed layout" ||
	not_ok "loop: the status bar does not show colour1"
keys loop 7
wait_for 10 pane_matches loop '^│ +[0-9]+ +colour1 ' && ok "loop: the compare panel shows the new run" ||
	{ not_ok "loop: no colour1 row"; pane loop | sed 's/^/# /' | head -n 12; }
stock=$(plain loop | awk '$2 == "stock" && $1 ~ /^[0-9]+$/ { print $5; exit }')
echo "# stock $stock, colour1 $meas misses per echo"
awk -v a="$meas" -v b="$stock" 'BEGIN { exit !(a > 0 && b > 0 && a < b) }' &&
	ok "loop: the compare panel's stock run ($stock) is above the new one ($meas)" ||
	not_ok "loop: stock '$stock', new '$meas'"
# :export writes what `xipbench report --out` writes, for both runs
keys loop ":export $W/export" Enter
if wait_for 30 test -s "$W/export/runs.json" && grep -q 'colour1' "$W/export/report.md" &&
	[ "$(jq '.runs | length' "$W/export/runs.json")" -ge 2 ] && ls "$W/export"/sets-*.svg >/dev/null 2>&1 &&
	grep -q '<svg' "$W/export/bars.svg"; then
	ok ":export writes report.md, runs.csv, runs.json, bars.svg and the set maps of the runs"
else
	not_ok ":export did not write the report"; ls "$W/export" 2>&1 | sed 's/^/# /'
fi
keys loop B
wait_for 180 pane_matches loop '│ stock │' && wait_for 120 pane_has loop "stock is on the board" &&
	ok "loop: B goes back to the stock image" || { not_ok "loop: no way back"; pane loop | tail -n 3 | sed 's/^/# /'; }
keys loop 6
wait_for 10 pane_matches loop '[│ ]0 hot ' && ok "loop: and to its layout (the hot block empty again)" ||
	{ not_ok "loop: the pending layout was not reset"; pane loop | sed 's/^/# /' | head -n 8; }
keys loop q
restored loop 0
clean loop

# ---- A Zephyr build folder: the loop relinks with the folder's own command ----
# The demo firmware stands in for the build's image; a cmake of this test's own (there is
# no west here) does what Zephyr's would with the plan folder's module: the configure step
# takes the layout from -DEXTRA_ZEPHYR_MODULES=LAYOUT/zephyr/snippet, the build links the
# image with it.
ZB="$W/zbuild"
mkdir -p "$ZB/zephyr" "$W/zbin"
make -s -C "$XB_SRC/firmware" BUILD_DIR="$W/zobj" ELF_OUT="$ZB/zephyr/zephyr.elf" \
	>"$W/zobj.log" 2>&1 || { not_ok "zephyr: the stand-in image builds"; tail -n 5 "$W/zobj.log"; }
printf 'CONFIG_BOARD="rpi_pico"\nCONFIG_BOARD_TARGET="rpi_pico/rp2040"\n' >"$ZB/zephyr/.config"
cat >"$W/zbin/cmake" <<EOS
#!/bin/sh
echo "cmake \$*" >>"$W/zcmake.log"
if [ "\$1" = --build ]; then
	exec make -s -C "$XB_SRC/firmware" BUILD_DIR="$W/zobj" LAYOUT="\$(cat "\$2/layout")" \\
		ELF_OUT="\$2/zephyr/zephyr.elf"
fi
for a; do
	case "\$a" in -DEXTRA_ZEPHYR_MODULES=*) l=\${a#-DEXTRA_ZEPHYR_MODULES=}; l=\${l%/zephyr/snippet};; esac
	d=\$a
done
echo "\$l" >"\$d/layout"
EOS
chmod +x "$W/zbin/cmake"
start_pane zl 200 60 "$XDG PATH=$W/zbin:/usr/local/bin:/usr/bin:/bin" \
	"\"$XIPBENCH\" --zephyr $ZB --no-config --udp-rate 0 --work-dir $W/zwork"
wait_for 180 pane_matches zl 'zephyr.elf.*running *│?$' &&
	ok "zephyr: xipbench --zephyr DIR runs the folder's image" ||
	{ not_ok "zephyr: not running"; pane zl | sed 's/^/# /' | head -n 3; sed 's/^/# /' "$W/zl.err" | tail -n 5; }
keys zl 6
keys zl P
wait_for 180 pane_matches zl 'planning profile of stock: [0-9]+ PC samples' || not_ok "zephyr: no planning profile"
keys zl ":preset colour" Enter
wait_for 120 pane_has zl "the colour preset fills the pending layout" || not_ok "zephyr: the preset"
keys zl ":loop z1" Enter
if wait_for 300 pane_matches zl 'z1: [0-9.]+ misses per echo measured'; then
	ok "zephyr: relinked with the folder's command, verified, flashed and measured"
else
	not_ok "zephyr: the loop did not end with a measurement"
	pane zl | sed 's/^/# /' | tail -n 8
fi
grep -q -- "-DSNIPPET=xipbench-layout -DEXTRA_ZEPHYR_MODULES=$W/zwork/.*/zephyr/snippet $ZB\$" "$W/zcmake.log" &&
	grep -q -- "--build $ZB\$" "$W/zcmake.log" &&
	ok "zephyr: the relink configured the folder with the layout's module, then built it" ||
	{ not_ok "zephyr: not the folder's relink"; sed 's/^/# /' "$W/zcmake.log"; }
cmp -s "$ZB/zephyr/zephyr.elf" "$W/zwork/images/z1.elf" &&
	ok "zephyr: the loop's image is the folder's relinked zephyr.elf" || not_ok "zephyr: the images differ"
keys zl q
restored zl 0

# ---- Failures keep the last good image ----
# A build of the firmware whose application keeps 190 KB of SRAM: 8 KB of code more in SRAM
# overflows the RAM region.
if ! make -s -C "$XB_SRC/firmware" BUILD_DIR="$W/fwbig" APP_BUFFER_KB=190 >"$W/fwbig.log" 2>&1; then
	not_ok "the firmware with APP_BUFFER_KB=190 builds"
	tail -n 5 "$W/fwbig.log" | sed 's/^/# /'
fi
BIG="$W/fwbig/buf190k/echo.elf"
cat >"$W/fail.keys" <<EOF
:view single
:wait running 60
:measure
:wait loop 180
:profile
:wait loop 180
:budget sram 24K
:preset sram 24K
:loop overflow
:wait loop 300
:layout
:dump $W/fail-overflow.dump
:log
:dump $W/fail-overflow-log.dump
:set build-command "sh -c 'echo compiling; echo main.c:3: error: broken; exit 1'"
:loop exit1
:wait loop 60
:dump $W/fail-exit1-log.dump
:layout
:dump $W/fail-exit1.dump
:set build-command "cp $BIG {elf}"
:loop mismatch
:wait loop 60
:dump $W/fail-mismatch.dump
:log
:dump $W/fail-mismatch-log.dump
:wait echoes 20 60
:layout
:dump $W/fail-layout.dump
:quit
EOF
"$XIPBENCH" workbench --elf "$BIG" --no-config --headless --keys "$W/fail.keys" --size 200x60 \
	--work-dir "$W/fwork" --udp-rate 0 \
	--build-command "make -C $XB_SRC/firmware BUILD_DIR=$W/fwbig LAYOUT={layout_dir} ELF_OUT={elf} APP_BUFFER_KB=190" \
	2>"$W/fail.err"
rc=$?
[ $rc -eq 0 ] && ok "failures: the key script ran to its end" ||
	{ not_ok "failures: exit status $rc"; tail -n 5 "$W/fail.err" | sed 's/^/# /'; }
for f in overflow exit1 mismatch; do
	grep -q "│ stock │" "$W/fail-$f.dump" && grep -q "the board keeps the last good image (stock)" \
		"$W/fail-$f.dump" && ok "failures: $f: stock keeps running" ||
		{ not_ok "failures: $f: not back on stock"; grep -m 3 -E 'stock|fail' "$W/fail-$f.dump" | sed 's/^/# /'; }
done
grep -q "region .RAM. overflowed" "$W/fail-overflow-log.dump" &&
	ok "failures: the log panel shows ld's overflow" || not_ok "failures: no overflow in the log"
grep -q "main.c:3: error: broken" "$W/fail-exit1-log.dump" && grep -q "exited with status 1" "$W/fail-exit1.dump" &&
	ok "failures: a build that exits 1 is reported with its error line" ||
	not_ok "failures: the failing build's reason is not shown"
grep -q "verification failed: .* not where the plan put them" "$W/fail-mismatch-log.dump" &&
	grep -q "mismatch: not flashed: [0-9]* functions are not where the plan put them" \
		"$W/fail-mismatch.dump" &&
	ok "failures: a relink that is not the plan's is not flashed" ||
	not_ok "failures: no verification failure"
grep -qE "flashed: stock +[0-9]" "$W/fail-layout.dump" &&
	ok "failures: the stock image is still measured (the layout panel shows its figures)" ||
	{ not_ok "failures: the flashed image lost its figures"; grep -m 2 "flashed" "$W/fail-layout.dump" | sed 's/^/# /'; }

# ---- kill -9 during a measurement, then a restart ----
start_pane k 120 40 "$XDG" "\"$XIPBENCH\" workbench --no-config --udp-rate 0 --work-dir $W/kwork"
wait_for 120 pane_matches k 'running *│?$|running$' || not_ok "kill: never running"
keys k M
wait_for 180 pane_matches k 'stock: [0-9.]+ misses per echo measured' &&
	ok "kill: the first measurement is committed" || not_ok "kill: no first measurement"
keys k ":measure again" Enter
wait_for 30 pane_has k "again: measuring" || wait_for 30 pane_has k "measuring"
kill -9 "$(cat "$W/k.pid")"
wait_for 20 pane_has k "exit status 137" && ok "kill: killed with -9 during the second measurement" ||
	not_ok "kill: not killed"
[ "$(sqlite3 "$W/kwork/runs.db" 'PRAGMA integrity_check')" = ok ] &&
	ok "kill: the history passes sqlite3's integrity check" || not_ok "kill: the history is damaged"
n=$(sqlite3 "$W/kwork/runs.db" 'SELECT count(*) FROM runs')
[ "$n" = 1 ] && ok "kill: one run committed, none half-written" || not_ok "kill: $n runs"
start_pane k2 120 40 "$XDG" "\"$XIPBENCH\" workbench --no-config --udp-rate 0 --work-dir $W/kwork --panel compare"
wait_for 120 pane_matches k2 '^│ +1 +stock ' && ok "kill: after a restart the compare panel shows the run" ||
	{ not_ok "kill: the run is not shown after a restart"; pane k2 | sed 's/^/# /' | head -n 8; }
keys k2 q
restored k2 0
finish
