#!/bin/sh
# test_workbench: the workbench in a real terminal (tmux) on the virtual Pico running the echo
# firmware: the libraries panel's shares against the batch profile of the same image
# (`xipbench experiment`'s ping profile through `xipbench info --samples`), the echoes panel's
# turnaround against `xipbench sim run --ping`, every panel by key and by ':' command,
# resizing down to 20x5, every theme and NO_COLOR, a lost and a faulting probe, `q` and
# `:quit` leaving the terminal as it was, a crash signal restoring it; headless: misses per
# echo against `sim run --ping` (live equals batch) and a key script with garbage. Under
# `make check-asan` the same runs use the sanitizer build; its reports fail the test.
. tests/integration/lib.sh

if ! command -v tmux >/dev/null 2>&1; then
	echo "ok 1 # SKIP tmux is not installed"
	exit 0
fi
W=$XB_WORK
. tests/tui/tmux.sh

# ---- The image and the batch figures it is compared with ----
# 300 pings in the profile (--quick alone samples 60: a share then moves by a point or two
# from one image to the next)
if ! "$XIPBENCH" experiment --quick --layouts stock --pings 300 --out "$W/exp" --json \
	>"$W/exp.json" 2>"$W/exp.log"; then
	not_ok "the batch profile (xipbench experiment --quick --layouts stock --pings 300)"
	tail -n 5 "$W/exp.log" | sed 's/^/# /'
	finish
	exit 1
fi
ELF="$W/exp/fw/default/echo.elf"
ok "the batch profile of $ELF"
"$XIPBENCH" info "$ELF" --samples "$W/exp/profiles/ping.samples" --json >"$W/info.json"
"$XIPBENCH" sim run --elf "$ELF" --ping 300 --json >"$W/simrun.json"
batch_turn=$(jq '.ping.turnaround_ms.median' "$W/simrun.json")
batch_miss=$(jq '.ping.misses_per_echo' "$W/simrun.json")
echo "# sim run --ping 300: turnaround $batch_turn ms, $batch_miss misses per echo"

# start NAME WIDTH HEIGHT ENV ARGS...: a pane that runs the workbench on the image.
start() {
	name=$1 w=$2 h=$3 envs=$4
	shift 4
	start_pane "$name" "$w" "$h" "$envs" "\"$XIPBENCH\" workbench --elf \"$ELF\" --no-config $*"
}

# ---- The main run: pings only, 200x60 ----
start main 200 60 "" --udp-rate 0 --idle-seconds 2 --window all --subtract off
if wait_for 60 pane_matches main 'running *│?$|running$'; then ok "main: running after bring-up"; else
	not_ok "main: never running"
	pane main | sed 's/^/# /' | head -n 5
fi
wait_for 60 pane_matches main 'IP stack +[0-9]' && ok "main: the libraries panel shows the IP stack" ||
	not_ok "main: no IP stack row"
# 10 s of pings: the sliding windows fill
sleep_until() { # SECONDS: the bench's own clock is not visible, so wait on wall time, bounded
	i=0
	while [ $i -lt $(($1 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
}
sleep_until 12
keys main 1
sleep 0.3
pane main >"$W/libraries.txt"
# the groups' shares, live and batch: both without an idle window subtracted (the batch
# profile has none: it samples the pings' window only)
awk -F'│' '/ %/ { s = $2; if (match(s, /^[A-Za-z][A-Za-z ]*[a-z0-9] +[0-9.]+k? +[0-9.]+ %/)) {
	line = substr(s, 1, RLENGTH); n = split(line, f, " +"); name = f[1];
	for (i = 2; i < n - 2; i++) name = name " " f[i]; print name "\t" f[n - 1] } }' \
	"$W/libraries.txt" | head -n 20 >"$W/live-shares.txt"
jq -r '.groups[] | "\(.name)\t\(.share)"' "$W/info.json" >"$W/batch-shares.txt"
checked=0 bad=""
while IFS='	' read -r name live; do
	batch=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$W/batch-shares.txt")
	[ -n "$batch" ] || continue
	checked=$((checked + 1))
	echo "# $name: live $live %, batch $batch %"
	awk -v a="$live" -v b="$batch" 'BEGIN { d = a - b; exit !(d < 5 && d > -5) }' || bad="$bad $name"
done <"$W/live-shares.txt"
if [ "$checked" -ge 4 ] && [ -z "$bad" ]; then
	ok "main: $checked groups' shares agree with the batch profile within 5 percentage points"
else
	not_ok "main: shares differ for:$bad ($checked compared)"
	sed 's/^/# /' "$W/libraries.txt" | head -n 20
fi

keys main 4
wait_for 5 pane_has main "Echoes" && ok "main: key 4 shows the echoes panel" || not_ok "main: key 4"
turn=$(pane main | sed -n 's/.*turnaround \([0-9.]*\) ms.*/\1/p' | head -n 1)
echo "# live turnaround $turn ms, sim run $batch_turn ms"
awk -v a="$turn" -v b="$batch_turn" 'BEGIN { exit !(a > 0 && (a - b) / b < 0.05 && (b - a) / b < 0.05) }' &&
	ok "main: the turnaround is within 5 % of sim run --ping" ||
	not_ok "main: turnaround $turn ms vs $batch_turn ms"

# every panel by key and by ':' command
for p in "1 Libraries libraries" "2 Functions functions" "3 Cache_sets cachesets" \
	"4 Echoes echoes" "5 Log log" "6 Layout layout" "7 Compare compare" "8 Triage triage" \
	"? Help help"; do
	set -- $p
	title=$(echo "$2" | tr _ ' ')
	keys main :view Enter single Enter
	keys main "$1"
	wait_for 5 pane_has main "┤ $title" && ok "main: key $1 shows $title" ||
		not_ok "main: key $1 does not show $title"
	keys main Escape 1
	keys main ":$3" Enter
	wait_for 5 pane_has main "┤ $title" && ok "main: :$3 shows $title" ||
		not_ok "main: :$3 does not show $title"
done
keys main :view Space auto Enter

# themes: each changes the colours the terminal gets
for t in light high-contrast mono dark; do
	keys main ":theme $t" Enter
	wait_for 5 pane_has main "theme $t" && ok "main: :theme $t" || not_ok "main: :theme $t"
	T capture-pane -e -p -t main >"$W/theme-$t.txt"
done
grep -q '38;5;' "$W/theme-dark.txt" && ok "main: the dark theme draws in 256 colours" ||
	not_ok "main: no 256-colour codes in the dark theme"
grep -q '38;5;\|\[3[0-7]m' "$W/theme-mono.txt" && not_ok "main: the mono theme has colours" ||
	ok "main: the mono theme draws without colours"
cmp -s "$W/theme-light.txt" "$W/theme-dark.txt" && not_ok "main: light looks like dark" ||
	ok "main: light and dark differ"

# a probe that goes away, and one that answers FAULT: said, samples kept, resumed
keys main 1 ":window all" Enter
# the libraries panel's sample count ("39.4k samples", "960 samples") as a number
samples_now() {
	pane main | sed -n 's/.* \([0-9.][0-9.]*[kM]*\) samples .*/\1/p' | head -n 1 |
		awk '/k$/ { print $0 * 1000; next } /M$/ { print $0 * 1000000; next } { print $0 + 0 }'
}
sleep 0.3
before=$(samples_now)
keys main ":probe drop" Enter
wait_for 10 pane_has main "the probe is gone" && ok "main: a dropped probe is reported" ||
	not_ok "main: no report of the dropped probe"
wait_for 20 pane_matches main 'running *│?$|running$' && ok "main: it reconnects and runs again" ||
	not_ok "main: no reconnection"
after=$(samples_now)
[ -n "$before" ] && [ -n "$after" ] && awk -v a="$after" -v b="$before" 'BEGIN { exit !(a >= b && b > 0) }' &&
	ok "main: the samples are kept ($before, then $after)" ||
	not_ok "main: samples before $before, after $after"
keys main ":probe fault" Enter
wait_for 10 pane_has main "FAULT" && ok "main: a target answering FAULT is reported" ||
	not_ok "main: no FAULT report"
keys main ":probe normal" Enter
wait_for 20 pane_matches main 'running *│?$|running$' && ok "main: it recovers from FAULT" ||
	not_ok "main: no recovery from FAULT"

# resize 200x60 -> 80x24 -> 20x5 -> 80x24
T resize-window -t main -x 80 -y 24
wait_for 5 pane_matches main '^ xipbench' && ok "main: redrawn at 80x24" || not_ok "main: not redrawn at 80x24"
T resize-window -t main -x 20 -y 5
wait_for 5 pane_has main "too small" && ok "main: a notice at 20x5" || not_ok "main: no notice at 20x5"
T resize-window -t main -x 80 -y 24
wait_for 5 pane_matches main '^ xipbench' && ok "main: back at 80x24" || not_ok "main: gone after 20x5"
keys main q
restored main 0
clean main

# ---- `xipbench` alone: the demo firmware built into the user's cache folder, then the
# workbench on it with the default traffic ----
start_pane bare 200 60 "XDG_CACHE_HOME=$W/cache XDG_CONFIG_HOME=$W/config" "\"$XIPBENCH\""
if wait_for 180 pane_matches bare 'IP stack +[0-9]'; then
	ok "bare: xipbench alone opens the workbench on the demo firmware"
else
	not_ok "bare: no libraries panel with the IP stack"
	pane bare | sed 's/^/# /' | head -n 5
	tail -n 5 "$W/bare.err" | sed 's/^/# /'
fi
grep -q "building the demo firmware into $W/cache/xipbench/firmware" "$W/bare.err" &&
	[ -s "$W/cache/xipbench/firmware/default/echo.elf" ] &&
	ok "bare: the demo firmware was built into the cache folder, with progress" ||
	{ not_ok "bare: no build of the demo firmware in $W/cache"; sed 's/^/# /' "$W/bare.err" | head -n 5; }
keys bare q
restored bare 0
clean bare

# ---- :quit, NO_COLOR ----
start nocolor 100 30 "NO_COLOR=1" --udp-rate 0
wait_for 60 pane_matches nocolor 'IP stack|bringing up|recording|running' || true
T capture-pane -e -p -t nocolor >"$W/nocolor.txt"
grep -q '38;5;\|\[3[0-7]m\|\[4[0-7]m' "$W/nocolor.txt" && not_ok "nocolor: colours with NO_COLOR" ||
	ok "nocolor: NO_COLOR draws without colours"
keys nocolor :quit Enter
restored nocolor 0
clean nocolor

# ---- a crash signal restores the terminal and keeps the signal's status ----
for sig in SEGV ABRT; do
	start crash$sig 100 30 "" --udp-rate 0
	wait_for 60 pane_matches crash$sig '^ xipbench'
	pid=$(cat "$W/crash$sig.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -$sig "$pid"
	case $sig in SEGV) code=139 ;; *) code=134 ;; esac
	restored crash$sig $code
done

# ---- headless: live equals batch, and a key script with garbage ----
cat >"$W/live.keys" <<EOF
:wait running 60
:wait seconds 12 120
:echoes
:dump $W/live.dump
:quit
EOF
if "$XIPBENCH" workbench --elf "$ELF" --no-config --headless --udp-rate 0 --keys "$W/live.keys" \
	--size 120x40 2>"$W/live.err"; then ok "headless: the script ran"; else
	not_ok "headless: exit status $?"
	tail -n 5 "$W/live.err" | sed 's/^/# /'
fi
clean live
live_miss=$(sed -n 's/.*misses\/echo \([0-9.]*\).*/\1/p' "$W/live.dump" | head -n 1)
echo "# live $live_miss misses per echo (idle subtracted), sim run --ping 300: $batch_miss"
awk -v a="$live_miss" -v b="$batch_miss" 'BEGIN { exit !(a > 0 && (a - b) / b < 0.02 && (b - a) / b < 0.02) }' &&
	ok "headless: misses per echo within 2 % of sim run --ping" ||
	not_ok "headless: $live_miss vs $batch_miss misses per echo"

# ---- the probe bench: the virtual probe of sim serve, its UDP forwarder and its capture ----
rm -f "$W/pb.fifo" "$W/pb.sock"
mkfifo "$W/pb.fifo"
port=$((30000 + $$ % 20000))
cat >"$W/pb.keys" <<EOF
:wait running 30
:wait echoes 600 30
:echoes
:dump $W/pb.dump
:quit
EOF
# the workbench first: it opens the capture fifo and waits for its writer, sim serve; the
# probe socket comes a moment later (the workbench keeps trying)
"$XIPBENCH" workbench --elf "$ELF" --no-config --headless --bench probe \
	--probe-socket "$W/pb.sock" --udp-target "127.0.0.1:$port" --capture "$W/pb.fifo" \
	--ping-rate 0 --keys "$W/pb.keys" --size 120x40 2>"$W/pb.err" &
wpid=$!
"$XIPBENCH" sim serve --elf "$ELF" --probe-socket "$W/pb.sock" --udp-port "$port" \
	--pcap "$W/pb.fifo" --seconds 60 >"$W/pb.serve" 2>&1 &
spid=$!
wait "$wpid"
rc=$?
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
[ $rc -eq 0 ] && ok "probe bench: the workbench on sim serve's probe, UDP and capture" ||
	{ not_ok "probe bench: exit status $rc"; tail -n 5 "$W/pb.err" "$W/pb.serve" | sed 's/^/# /'; }
pb_turn=$(sed -n 's/.*turnaround \([0-9.]*\) ms.*/\1/p' "$W/pb.dump" | head -n 1)
pb_samples=$(sed -n 's/.*PC samples \([0-9.]*k*\)\/s.*/\1/p' "$W/pb.dump" | head -n 1)
echo "# probe bench: turnaround $pb_turn ms, $pb_samples PC samples/s"
[ -n "$pb_turn" ] && [ -n "$pb_samples" ] && [ "$pb_samples" != 0 ] &&
	ok "probe bench: turnaround from the capture and PC samples through the probe" ||
	not_ok "probe bench: turnaround '$pb_turn', samples '$pb_samples'"
clean pb

printf 'q\n:wait running\n<Tab><Foo>\n' >"$W/bad.keys"
check_fails "a key script with garbage names the line" "bad.keys:3: .*<Foo>" \
	"$XIPBENCH" workbench --elf "$ELF" --no-config --headless --keys "$W/bad.keys"
printf ':theme dark\n:sort\n:frobnicate 3\n' >"$W/bad2.keys"
check_fails "an unknown command names its line" "bad2.keys:3: unknown command 'frobnicate'" \
	"$XIPBENCH" workbench --elf "$ELF" --no-config --headless --keys "$W/bad2.keys"
finish
