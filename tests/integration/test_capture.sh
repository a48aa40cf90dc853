#!/bin/sh
# test_capture: `xipbench capture` against tshark on two captures: the virtual host
# enumerating the CDC-ECM loopback program and exchanging frames with it (test_usbhost with
# XB_PCAP_OUT), and pings and UDP echoes written with the usbmon writer, with an enumeration
# record, usbnet padding, a lost echo and a duplicate (test_capture_echo with
# XB_CAPTURE_PCAP_OUT). The same Ethernet frames in each direction with the same lengths,
# the same ICMP turnarounds; the virtual network peer's own turnarounds from the capture of
# its run; standard input as a stream; damaged captures; every JSON key documented in
# docs/cli.md.
. tests/integration/lib.sh
W=$XB_WORK

if ! command -v tshark >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	echo "ok 1 - # SKIP tshark or jq is not installed"
	exit 0
fi

check "test_usbhost writes a capture" env XB_PCAP_OUT="$W/usb.pcap" "$XB_BUILD/tests/test_usbhost"
check "test_capture_echo writes a capture" env XB_CAPTURE_PCAP_OUT="$W/echo.pcap" \
	"$XB_BUILD/tests/test_capture_echo"

# One tshark pass per capture (tshark is slow to start); the columns below are numbered
# as awk sees them.
fields() { # PCAP OUT
	tshark -r "$1" -T fields -e frame.number -e usb.urb_type -e usb.transfer_type \
		-e usb.endpoint_address.direction -e eth.type -e usb.data_len -e eth.padding \
		-e eth.trailer -e usb.endpoint_address -e usb.urb_status -e usb.request_in \
		-e usb.time -e icmp.type -e icmp.resp_to -e icmp.resptime 2>/dev/null >"$2"
}
fields "$W/usb.pcap" "$W/usb.fields"
fields "$W/echo.pcap" "$W/echo.fields"

# tshark's frames: OUT data on 'S' records, IN data on 'C' records; one line per frame,
# "transfer-length length". usbnet's byte (a frame one byte past whole 64-byte packets)
# is not part of the frame when tshark finds it after the IP or ARP packet (padding or
# trailer).
tshark_frames() { # FIELDS out|in
	awk -F '\t' -v dir="$2" '$3 == "0x03" && $5 != "" &&
		((dir == "out" && $2 == "\047S\047" && $4 == 0) ||
		 (dir == "in" && $2 == "\047C\047" && $4 == 1)) {
			len = $6
			if (dir == "out" && $6 % 64 == 1 && ($7 != "" || $8 != "")) len = $6 - 1
			print $6, len
		}' "$1"
}

ours_frames() { # PCAP out|in
	"$XIPBENCH" capture frames --pcap "$1" --json |
		jq -r --arg d "$2" '.frames[] | select(.direction == $d) | "\(.transfer_length) \(.length)"'
}

for p in usb echo; do
	for d in out in; do
		tshark_frames "$W/$p.fields" $d >"$W/$p.$d.tshark"
		ours_frames "$W/$p.pcap" $d >"$W/$p.$d.ours"
		n=$(wc -l <"$W/$p.$d.tshark" | tr -d ' ')
		if [ "$n" -gt 0 ] && cmp -s "$W/$p.$d.tshark" "$W/$p.$d.ours"; then
			ok "$p.pcap: the $n $d frames tshark finds, with the same lengths"
		else
			not_ok "$p.pcap: $d frames differ from tshark's"
			diff "$W/$p.$d.tshark" "$W/$p.$d.ours" | head -n 10 | sed 's/^/# /'
		fi
	done
done
grep -q '^65 65$' "$W/usb.out.ours" && ok "usb.pcap: a padded frame of another EtherType keeps its byte" ||
	not_ok "usb.pcap: the 65-byte loopback frame"
grep -q '^65 64$' "$W/echo.out.ours" && grep -q '^1089 1088$' "$W/echo.out.ours" &&
	ok "echo.pcap: usbnet's byte is stripped from IP frames" || not_ok "echo.pcap: padding"

# Turnaround, the study's way, from tshark: ICMP's response time (request 'S' to reply 'C')
# less the request's OUT transfer time (its 'S' to its 'C').
awk -F '\t' '$2 == "\047C\047" && $9 == "0x02" && $10 == 0 { print $11, $12 }' \
	"$W/echo.fields" >"$W/out_done"
awk -F '\t' '$13 == 0 && $14 != "" { print $14, $15 }' "$W/echo.fields" >"$W/replies"
awk 'NR == FNR { t[$1] = $2; next } ($1 in t) { printf "%.3f\n", ($2 - t[$1] * 1000) * 1000 }' \
	"$W/out_done" "$W/replies" | sort -n >"$W/turn.tshark"
"$XIPBENCH" capture turnaround --pcap "$W/echo.pcap" --json >"$W/turn.json"
jq -r '.echoes[] | select(.kind == "icmp" and .turnaround_us != null) | .turnaround_us' "$W/turn.json" |
	awk '{ printf "%.3f\n", $1 }' | sort -n >"$W/turn.ours"
n=$(wc -l <"$W/turn.tshark" | tr -d ' ')
if [ "$n" -ge 8 ] && cmp -s "$W/turn.tshark" "$W/turn.ours"; then
	ok "the $n ICMP turnarounds agree with tshark's"
else
	not_ok "ICMP turnarounds differ from tshark's"
	diff "$W/turn.tshark" "$W/turn.ours" | head -n 10 | sed 's/^/# /'
fi
req=$(awk -F '\t' '$2 == "\047S\047" && $13 == 8' "$W/echo.fields" | wc -l | tr -d ' ')
[ "$(jq .icmp.requests "$W/turn.json")" = "$req" ] && ok "the $req ICMP requests tshark finds" ||
	not_ok "ICMP requests: $(jq .icmp.requests "$W/turn.json"), tshark $req"
[ "$(jq '[.udp.requests, .udp.replied, .udp.lost, .icmp.lost, .icmp.failed, .icmp.duplicates, .icmp.unmatched] | join(" ")' -r "$W/turn.json")" = "5 4 1 1 1 1 1" ] &&
	ok "lost, failed, duplicate and unmatched echoes" || not_ok "echo counts: $(jq -c '[.udp, .icmp]' "$W/turn.json")"
median=$(jq .icmp.turnaround_median_us "$W/turn.json")
[ "$median" = "810" ] && ok "median ICMP turnaround 810 us" || not_ok "median $median"
check "the text report" sh -c "'$XIPBENCH' capture turnaround --pcap '$W/echo.pcap' | grep -q 'median 0.810 ms'"

# The same capture as pcapng, written by a big-endian host, with nanosecond timestamps and
# with link type 189's 48-byte headers (tests/fuzz/corpus/pcap) gives the same echoes.
C=tests/fuzz/corpus/pcap
summary() { "$XIPBENCH" capture turnaround --pcap "$1" --json | jq -c '[.icmp, .udp, .frames_out, .frames_in]'; }
want=$(summary $C/echo.pcap)
for v in echo.pcapng bigendian.pcap nanosecond.pcap linux189.pcap; do
	got=$(summary $C/$v)
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "$v: the same echoes and turnarounds" ||
		not_ok "$v: $got"
done

# The virtual network peer matches its echoes in process; the capture of the same run,
# read here, must give the same turnarounds (to the microsecond of the pcap timestamps).
ND="$XB_BUILD/netdev-progs/netdev.elf"
if sh tests/data/netdev/build.sh "$XB_BUILD/netdev-progs" >"$W/netdev.log" 2>&1 &&
	"$XIPBENCH" sim run --elf "$ND" --ping 20 --udp 200 --seconds 0.2 --pcap "$W/sim.pcap" \
		--json >"$W/sim.json" 2>"$W/sim.err"; then
	jq -r '(.ping.echoes[] | select(.turnaround_ms != null) | "icmp-\(.seq) \(.turnaround_ms * 1000)"),
		(.udp.echoes[] | select(.turnaround_ms != null) | "udp-\(.nonce) \(.turnaround_ms * 1000)")' \
		"$W/sim.json" | sort >"$W/peer.turn"
	"$XIPBENCH" capture turnaround --pcap "$W/sim.pcap" --json | jq -r '.echoes[] |
		select(.turnaround_us != null) | if .kind == "icmp" then "icmp-\(.seq) \(.turnaround_us)"
		else "udp-\(.nonce[8:16] | explode | map(if . >= 97 then . - 87 else . - 48 end) |
			reduce .[] as $d (0; . * 16 + $d)) \(.turnaround_us)" end' | sort >"$W/ours.turn"
	bad=$(join "$W/peer.turn" "$W/ours.turn" | awk '{ d = $2 - $3; if (d < -1.001 || d > 1.001) print }')
	n=$(join "$W/peer.turn" "$W/ours.turn" | wc -l | tr -d ' ')
	if [ "$n" -ge 40 ] && [ -z "$bad" ] && [ "$n" = "$(wc -l <"$W/peer.turn" | tr -d ' ')" ] &&
		[ "$n" = "$(wc -l <"$W/ours.turn" | tr -d ' ')" ]; then
		ok "the network peer's $n turnarounds, from the capture of the same run"
	else
		not_ok "turnarounds differ from the network peer's ($n joined)"
		echo "$bad" | head -n 5 | sed 's/^/# /'
	fi
	peer=$(jq .udp.echo_rate "$W/sim.json")
	ours=$("$XIPBENCH" capture rate --pcap "$W/sim.pcap" --rates 200 --step-ms 200 --json |
		jq .peak_reply_rate)
	[ -n "$peer" ] && [ "$peer" = "$ours" ] && ok "the network peer's UDP echo rate ($peer/s)" ||
		not_ok "UDP echo rate: peer $peer, capture $ours"
else
	echo "ok $((XB_N + 1)) - # SKIP the virtual network run failed (see $W/sim.err, $W/netdev.log)"
	XB_N=$((XB_N + 1))
fi

# A stream on standard input reads the same.
"$XIPBENCH" capture frames --pcap "$W/echo.pcap" --json | jq -c .frames >"$W/file.frames"
"$XIPBENCH" capture frames --pcap - --json <"$W/echo.pcap" | jq -c .frames >"$W/stdin.frames"
cmp -s "$W/file.frames" "$W/stdin.frames" && ok "standard input gives the same frames" ||
	not_ok "standard input differs"
cat "$W/echo.pcap" | "$XIPBENCH" capture frames --pcap - --json | jq -c .frames >"$W/pipe.frames"
cmp -s "$W/file.frames" "$W/pipe.frames" && ok "a pipe gives the same frames" || not_ok "a pipe differs"

# Damaged captures: a clear message naming the file and the record, what came before kept.
size=$(wc -c <"$W/echo.pcap")
head -c $((size - 10)) "$W/echo.pcap" >"$W/cut.pcap"
check_fails "a cut capture fails at its last record" \
	"cut.pcap: record [0-9]+ \(byte [0-9]+\): truncated dump file" \
	"$XIPBENCH" capture frames --pcap "$W/cut.pcap"
"$XIPBENCH" capture frames --pcap "$W/cut.pcap" --json 2>/dev/null >"$W/cut.json"
kept=$(jq '.frames | length' "$W/cut.json")
all=$(jq 'length' "$W/file.frames")
[ "$kept" -ge $((all - 1)) ] && [ "$(jq -r .error "$W/cut.json")" != null ] &&
	ok "the frames before the damage are reported ($kept of $all)" || not_ok "cut: $kept of $all frames"
printf 'GIF89a, not a capture at all' >"$W/gif.pcap"
check_fails "a file that is no capture" "gif.pcap: not a capture" \
	"$XIPBENCH" capture turnaround --pcap "$W/gif.pcap"
check_fails "a missing file" "nope.pcap: cannot open the capture" \
	"$XIPBENCH" capture frames --pcap "$W/nope.pcap"
check_fails "usage: frames needs --pcap" "needs --pcap" "$XIPBENCH" capture frames
check_fails "a live capture says what it needs" "modprobe usbmon|root|no USB bus 99" \
	"$XIPBENCH" capture live --iface usbmon99 --duration 0.2
check "rate steps" sh -c "'$XIPBENCH' capture rate --pcap '$W/echo.pcap' --rates 100 --step-ms 100 |
	grep -q 'peak         40.0 replies/s'"

# every key of each JSON output appears in docs/cli.md as `key`, `parent.key` or in a
# `{key, key}` list
"$XIPBENCH" capture frames --pcap "$W/usb.pcap" --json >"$W/frames.json"
keys_documented "capture frames" "$W/frames.json"
keys_documented "capture turnaround" "$W/turn.json"
"$XIPBENCH" capture rate --pcap "$W/echo.pcap" --rates 50:100:50 --step-ms 100 --passes 2 --json >"$W/rate.json"
keys_documented "capture rate" "$W/rate.json"
finish
