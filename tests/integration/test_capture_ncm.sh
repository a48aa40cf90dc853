#!/bin/sh
# test_capture_ncm: `xipbench capture` on CDC-NCM (NTB16, NTB32) and RNDIS captures of the
# same echo traffic as a CDC-ECM one (test_capture_ncm with XB_CAPTURE_NCM_OUT): pings and
# UDP echoes batched several to a transfer, a lost ping, a duplicate reply, an ARP request
# beside a reply. tshark is the oracle: it decodes NCM from usbmon itself (its MBIM
# dissector reads NTBs), so each Ethernet frame inside, its direction, length, EtherType,
# addresses, ICMP and UDP fields and ICMP response times come from tshark and are compared
# with xipbench's frames and turnarounds, and with tshark's reading of the frames xipbench
# decoded (written as an Ethernet pcap). tshark 4.0 has no RNDIS dissector: the RNDIS
# frames xipbench decoded are compared with the frames sent, and its report with the
# CDC-ECM capture's. Damaged transfers: the message names the record, earlier frames kept.
. tests/integration/lib.sh
W=$XB_WORK

if ! command -v tshark >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	echo "ok 1 - # SKIP tshark or jq is not installed"
	exit 0
fi

check "test_capture_ncm writes the captures" env XB_CAPTURE_NCM_OUT="$W" \
	"$XB_BUILD/tests/test_capture_ncm"

# tshark's Ethernet frames in a capture, from its PDML: one line per frame,
# "F record direction length ethertype src dst icmp-type icmp-seq udp-ports resp-to
# resp-time" ("-" for a missing field; direction and length from the usbmon record, or,
# for a frame inside an NTB, from the NDP entry that points at it); and one line per OUT
# completion, "D request-record time-from-request".
pdml() { # PCAP OUT
	tshark -r "$1" -T pdml 2>/dev/null | awk '
	function attr(s, a,   i) {
		i = index(s, " " a "=\"")
		if (!i) return ""
		s = substr(s, i + length(a) + 3)
		return substr(s, 1, index(s, "\"") - 1)
	}
	function v(x) { return x == "" ? "-" : x }
	function frame_out(   len) {
		if (!eth) return
		len = ndl ? dl[eth] : (datalen != "" ? datalen : flen)
		print "F", num, v(dir), len, et, v(src), v(dst), v(it), v(iseq), v(ports), v(rto), v(rt)
		et = src = dst = it = iseq = ports = rto = rt = ""
	}
	/<packet>/ { num = urb = edir = datalen = flen = utime = reqin = ""; eth = ndl = 0 }
	/<proto name="eth"/ { frame_out(); eth++ }
	/<field name="/ {
		n = attr($0, "name"); s = attr($0, "show")
		if (n == "frame.number") num = s
		else if (n == "frame.len") flen = s
		else if (n == "usb.urb_type") urb = index(attr($0, "showname"), "URB_SUBMIT") ? "S" : "C"
		else if (n == "usb.endpoint_address.direction") edir = s
		else if (n == "usb.data_len") datalen = s
		else if (n == "usb.time") utime = s
		else if (n == "usb.request_in") reqin = s
		else if (n == "mbim.bulk.ndp.datagram.length" && s != 0) dl[++ndl] = s
		else if (n == "eth.type" && et == "") et = s
		else if (n == "ip.src" && src == "") src = s
		else if (n == "ip.dst" && dst == "") dst = s
		else if (n == "arp.src.proto_ipv4") src = s
		else if (n == "arp.dst.proto_ipv4") dst = s
		else if (n == "icmp.type") it = s
		else if (n == "icmp.seq") iseq = s
		else if (n == "udp.srcport") ports = s
		else if (n == "udp.dstport") ports = ports ">" s
		else if (n == "icmp.resp_to") rto = s
		else if (n == "icmp.resptime") rt = s
		dir = urb == "S" && edir == 0 ? "out" : urb == "C" && edir == 1 ? "in" : ""
	}
	/<\/packet>/ {
		frame_out()
		if (urb == "C" && edir == 0 && reqin != "") print "D", reqin, utime
	}' >"$2"
}

for p in ecm ncm16 ncm32 rndis; do
	pdml "$W/$p.pcap" "$W/$p.pdml"
	pdml "$W/$p.frames.pcap" "$W/$p.frames.pdml"
	"$XIPBENCH" capture frames --pcap "$W/$p.pcap" --json >"$W/$p.frames.json"
	"$XIPBENCH" capture turnaround --pcap "$W/$p.pcap" --json >"$W/$p.turn.json"
done
pdml "$W/sent.pcap" "$W/sent.pdml"

# xipbench's frames: "direction length icmp-seq" (the seq from the summary), as tshark's.
ours() { jq -r '.frames[] | "\(.direction) \(.length) \(.summary | (capture("seq (?<s>[0-9]+)").s) // "-")"' "$1"; }
theirs() { awk '$1 == "F" { print $3, $4, $9 }' "$1"; }
# the Ethernet and IP fields of each frame, as tshark sees them
fields() { awk '$1 == "F" { print $5, $6, $7, $8, $9, $10 }' "$1"; }

for p in ecm ncm16 ncm32; do
	ours "$W/$p.frames.json" >"$W/$p.ours"
	theirs "$W/$p.pdml" >"$W/$p.theirs"
	n=$(wc -l <"$W/$p.theirs" | tr -d ' ')
	if [ "$n" -ge 17 ] && cmp -s "$W/$p.ours" "$W/$p.theirs"; then
		ok "$p.pcap: the $n frames tshark finds, with the same directions, lengths and ICMP sequence numbers"
	else
		not_ok "$p.pcap: frames differ from tshark's"
		diff "$W/$p.theirs" "$W/$p.ours" | head -n 10 | sed 's/^/# /'
	fi
	fields "$W/$p.pdml" >"$W/$p.fields.theirs"
	fields "$W/$p.frames.pdml" >"$W/$p.fields.ours"
	if [ -s "$W/$p.fields.ours" ] && cmp -s "$W/$p.fields.theirs" "$W/$p.fields.ours"; then
		ok "$p.pcap: tshark reads the same Ethernet, IP, ICMP and UDP fields in the frames xipbench decoded"
	else
		not_ok "$p.pcap: the decoded frames' fields differ"
		diff "$W/$p.fields.theirs" "$W/$p.fields.ours" | head -n 10 | sed 's/^/# /'
	fi
done
grep -q 'ARP' "$W/ncm16.frames.json" && [ "$(awk '$1 == "F" && $5 == "0x0806"' "$W/ncm16.pdml" | wc -l)" = 1 ] &&
	ok "ncm16.pcap: the ARP request beside a reply" || not_ok "ncm16.pcap: the ARP request"
[ "$(jq '[.frames[] | select(.transfer_length > .length)] | length' "$W/ncm32.frames.json")" = 17 ] &&
	ok "ncm32.pcap: every frame came inside a longer NTB" || not_ok "ncm32.pcap: transfer lengths"

# RNDIS: the frames xipbench decoded are the frames sent, field by field and byte count
# by byte count (tshark on both), and the same frames in the same order as the CDC-ECM
# capture's (tshark on that).
decoded() { awk '$1 == "F" { print $4, $5, $6, $7, $8, $9, $10 }' "$1"; }
decoded "$W/rndis.frames.pdml" >"$W/rndis.decoded"
decoded "$W/sent.pdml" >"$W/sent.decoded"
if [ "$(wc -l <"$W/sent.decoded" | tr -d ' ')" = 17 ] && cmp -s "$W/sent.decoded" "$W/rndis.decoded"; then
	ok "rndis.pcap: tshark reads the 17 frames sent in the frames xipbench decoded"
else
	not_ok "rndis.pcap: the decoded frames differ from those sent"
	diff "$W/sent.decoded" "$W/rndis.decoded" | head -n 10 | sed 's/^/# /'
fi
ours "$W/rndis.frames.json" >"$W/rndis.ours"
cmp -s "$W/rndis.ours" "$W/ecm.theirs" && ok "rndis.pcap: directions, lengths and sequence numbers as tshark's in ecm.pcap" ||
	not_ok "rndis.pcap: frames differ from the CDC-ECM capture's"

# Turnaround, the study's way, from tshark: ICMP's response time (request 'S' to reply 'C')
# less the request's OUT transfer time (its 'S' to its 'C'). tshark's values from ecm.pcap
# stand for rndis.pcap.
tshark_turn() { # PDML OUT
	awk '$1 == "D" { t[$2] = $3; next }
	     $1 == "F" && $8 == 0 && $11 != "-" && ($11 in t) { printf "%.3f\n", ($12 - t[$11] * 1000) * 1000 }' \
		"$1" | sort -n >"$2"
}
our_turn() { jq -r '.echoes[] | select(.kind == "icmp" and .turnaround_us != null) | .turnaround_us' "$1" |
	awk '{ printf "%.3f\n", $1 }' | sort -n; }
tshark_turn "$W/ecm.pdml" "$W/ecm.turn.tshark"
for p in ecm ncm16 ncm32 rndis; do
	ref=$p
	note=""
	if [ $p = rndis ]; then
		ref=ecm
		note=" (tshark's from ecm.pcap)"
	else
		tshark_turn "$W/$p.pdml" "$W/$p.turn.tshark"
	fi
	our_turn "$W/$p.turn.json" >"$W/$p.turn.ours"
	n=$(wc -l <"$W/$ref.turn.tshark" | tr -d ' ')
	if [ "$n" = 5 ] && cmp -s "$W/$ref.turn.tshark" "$W/$p.turn.ours"; then
		ok "$p.pcap: the $n ICMP turnarounds agree with tshark's$note"
	else
		not_ok "$p.pcap: ICMP turnarounds differ from tshark's ($ref.pcap)"
		diff "$W/$ref.turn.tshark" "$W/$p.turn.ours" | head -n 10 | sed 's/^/# /'
	fi
done
[ "$(jq -c '[.icmp.requests, .icmp.replied, .icmp.lost, .icmp.duplicates, .udp.requests, .udp.replied, .udp.turnaround_median_us]' "$W/ncm16.turn.json")" = "[6,5,1,1,2,2,900]" ] &&
	ok "ncm16.pcap: requests, replies, the lost ping, the duplicate, the UDP echoes" ||
	not_ok "ncm16.pcap: $(jq -c '[.icmp, .udp]' "$W/ncm16.turn.json")"

# Every report the same over each framing as over CDC-ECM.
same() { jq -S -c "del(.capture, .warning) | $1" "$2"; }
rate() { "$XIPBENCH" capture rate --pcap "$1" --rates 100,200 --step-ms 20 --passes 1 --json | jq -S -c 'del(.capture, .records)'; }
ecm_echoes=$(same '.echoes, .icmp, .udp' "$W/ecm.turn.json")
ecm_rate=$(rate "$W/ecm.pcap")
for p in ncm16 ncm32 rndis; do
	[ -n "$ecm_echoes" ] && [ "$(same '.echoes, .icmp, .udp' "$W/$p.turn.json")" = "$ecm_echoes" ] &&
		ok "$p.pcap: the same echoes and turnarounds as ecm.pcap" || not_ok "$p.pcap: echoes differ from ecm.pcap's"
	[ -n "$ecm_rate" ] && [ "$(rate "$W/$p.pcap")" = "$ecm_rate" ] &&
		ok "$p.pcap: the same echo rate steps as ecm.pcap" || not_ok "$p.pcap: rate differs"
done
"$XIPBENCH" capture frames --pcap - --json <"$W/ncm32.pcap" | jq -c .frames >"$W/stdin.frames"
[ -s "$W/stdin.frames" ] && [ "$(jq -c .frames "$W/ncm32.frames.json")" = "$(cat "$W/stdin.frames")" ] &&
	ok "ncm32.pcap on standard input gives the same frames" || not_ok "ncm32.pcap on standard input"

# Damaged transfers: the warning names the record and the fault; the frames before the
# fault and the transfers after it are kept; the exit status stays 0.
for p in ncm16 rndis; do
	"$XIPBENCH" capture frames --pcap "$W/$p-bad.pcap" --json >"$W/$p-bad.json"
	rc=$?
	w=$(jq -r .warning "$W/$p-bad.json")
	case $p in
	ncm16) want="record 4 (bus 1 device 2 endpoint 0x82): CDC-NCM: NTB16: datagram 1 of the NDP at 232 (300 bytes at 76) is past the block's end" ;;
	rndis) want="record 4 (bus 1 device 2 endpoint 0x82): RNDIS: RNDIS: the message at 106: DataLength 3 is less than an Ethernet header" ;;
	esac
	if [ $rc = 0 ] && [ "$w" = "$W/$p-bad.pcap: $want" ] && [ "$(jq '.frames | length' "$W/$p-bad.json")" = 4 ]; then
		ok "$p-bad.pcap: the fault and its record named, 4 frames kept"
	else
		not_ok "$p-bad.pcap: exit $rc, warning '$w', $(jq '.frames | length' "$W/$p-bad.json") frames"
	fi
done
# the device line names the framing and where it came from; --proto forces one
for p in ncm16 rndis; do
	want=$( [ $p = rndis ] && echo rndis || echo ncm )
	[ "$(jq -r '.devices[0].proto' "$W/$p.frames.json")" = "$want" ] &&
		ok "$p.pcap: the device's framing is $want" ||
		not_ok "$p.pcap: framing $(jq -c '.devices[0]' "$W/$p.frames.json")"
done
"$XIPBENCH" capture frames --pcap "$W/ncm16.pcap" >"$W/ncm16.txt"
grep -q '^device .*CDC-NCM (from its' "$W/ncm16.txt" && ok "ncm16.pcap: the text names CDC-NCM" ||
	not_ok "ncm16.pcap: $(grep '^device' "$W/ncm16.txt")"
"$XIPBENCH" capture frames --pcap "$W/ncm16.pcap" --proto ecm --json >"$W/forced.json"
[ "$(jq -r '.devices[0].proto_from' "$W/forced.json")" = option ] && ok "--proto ecm is taken as given" ||
	not_ok "--proto: $(jq -c '.devices[0]' "$W/forced.json")"
check_fails "--proto with an unknown framing" "is not auto, ecm, ncm or rndis" \
	"$XIPBENCH" capture frames --pcap "$W/ncm16.pcap" --proto ppp
finish
