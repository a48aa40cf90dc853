# test_sim_traffic: `xipbench sim run` with the network peer's traffic and `xipbench sim
# serve`, on the echo firmware (firmware/build/echo.elf, when `make -C firmware` builds it and
# it answers) or else on the test device of tests/data/netdev. The captures are read by
# tshark: no malformed records, every ICMP request and reply and every UDP datagram inside
# the bulk transfers with valid checksums, turnarounds recomputed from the records;
# identical JSON from identical runs; every JSON key documented; failures; serve answering a
# UDP datagram from a client on
# 127.0.0.1 and DAP_Info on the probe socket, ending on --seconds and on SIGTERM.
. tests/integration/lib.sh
W=$XB_WORK

sim() { "$XIPBENCH" sim run "$@"; }

# The device: the echo firmware if it builds and answers a ping, else the test device.
FW=firmware/build/echo.elf
if make -C firmware >"$W/fw.log" 2>&1 && [ -f "$FW" ] &&
	sim --elf "$FW" --ping 1 --json >"$W/probe.json" 2>"$W/probe.err" &&
	[ "$(jq -r .ping.received "$W/probe.json" 2>/dev/null)" = 1 ]; then
	echo "# device: the echo firmware, $FW"
else
	echo "# device: the test device of tests/data/netdev (the echo firmware did not build or answer: see $W/fw.log, $W/probe.json)"
	if ! sh tests/data/netdev/build.sh "$XB_BUILD/netdev-progs" >"$W/netdev.log" 2>&1; then
		not_ok "build the test device with arm-none-eabi-gcc"
		sed 's/^/# /' "$W/netdev.log" | head -n 20
		finish
		exit 1
	fi
	FW="$XB_BUILD/netdev-progs/netdev.elf"
fi

# ---- Pings, and the capture read by tshark ----

# One run, one capture (tshark is slow to start): 20 pings, then UDP echo at 200/s.
PCAP="$W/traffic.pcap"
if sim --elf "$FW" --ping 20 --interval-ms 20 --udp 200 --seconds 0.1 --pcap "$PCAP" --json \
	>"$W/ping.json" 2>"$W/ping.err"; then
	ok "sim run --ping 20 --interval-ms 20 --udp 200 --seconds 0.1 --pcap"
else
	not_ok "sim run --ping 20 ... --pcap"
	sed 's/^/# /' "$W/ping.err" | head -n 20
fi
r=$(jq -r '"\(.ping.sent) \(.ping.received) \(.ping.lost)"' "$W/ping.json" 2>/dev/null)
if [ "$r" = "20 20 0" ]; then ok "20 pings sent, 20 replies, none lost"; else not_ok "sent received lost: $r"; fi
r=$(jq -r '"\(.udp.count) \(.udp.received) \(.udp.lost) \(.udp.echo_rate)"' "$W/ping.json" 2>/dev/null)
if [ "$r" = "20 20 0 200" ]; then ok "20 datagrams echoed at 200/s"; else not_ok "count received lost rate: $r"; fi

# fields FILE: one line per record, "|"-separated (see F below), for awk.
F="-e usb.transfer_type -e usb.urb_type -e usb.endpoint_address.direction -e icmp.type \
-e ip.checksum.status -e icmp.checksum.status -e udp.checksum.status -e arp.opcode \
-e arp.src.proto_ipv4 -e frame.time_epoch -e usb.urb_id -e icmp.seq -e udp.srcport -e udp.dstport \
-e _ws.expert.severity"
TS="tshark -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE"
# shellcheck disable=SC2086
fields() { $TS -r "$1" -T fields -E separator='|' -E occurrence=a $F 2>/dev/null; }
# expect_n DESCRIPTION FILE AWK-CONDITION N: records of the fields dump FILE matching
expect_n() {
	n=$(awk -F'|' "$3 { n++ } END { print n + 0 }" "$2")
	if [ "$n" = "$4" ]; then ok "$1"; else not_ok "$1 ($3: $n, expected $4)"; fi
}
malformed() { # FIELDS-FILE: no record with an expert info of severity error (malformed ...)
	bad=$(awk -F'|' '$15 ~ /8388608/' "$1")
	if [ -z "$bad" ]; then ok "$1: no malformed records"; else
		not_ok "$1: malformed records"
		echo "$bad" | sed 's/^/# /' | head -n 10
	fi
}
HAVE_TSHARK=0
command -v tshark >/dev/null 2>&1 && HAVE_TSHARK=1
if [ $HAVE_TSHARK = 0 ]; then
	echo "ok - # SKIP tshark is not installed"
else
	fields "$PCAP" >"$W/ping.f"
	malformed "$W/ping.f"
	# $1 transfer type, $2 urb type, $3 direction, $4 icmp type, $5-$7 checksum status
	# (1 good, 0 bad), $8 arp opcode, $9 arp sender, $10 time, $11 urb id, $12 icmp seq,
	# $13 $14 udp ports, $15 expert info severities
	expect_n "20 echo requests in bulk OUT submissions" "$W/ping.f" \
		"\$4 == 8 && \$1 == \"0x03\" && \$2 == \"'S'\" && \$3 == 0" 20
	expect_n "20 echo replies in bulk IN completions" "$W/ping.f" \
		"\$4 == 0 && \$4 != \"\" && \$1 == \"0x03\" && \$2 == \"'C'\" && \$3 == 1" 20
	expect_n "every IPv4 and ICMP checksum is valid" "$W/ping.f" \
		"\$4 != \"\" && \$5 == 1 && \$6 == 1" 40
	expect_n "no checksum is wrong" "$W/ping.f" "\$5 == \"0\" || \$6 == \"0\" || \$7 == \"0\"" 0
	expect_n "the peer's ARP request is answered by the device" "$W/ping.f" \
		"\$8 == 2 && \$9 == \"192.0.2.1\"" 1
	expect_n "20 datagrams to port 7 in bulk OUT transfers, checksums valid" "$W/ping.f" \
		"\$1 == \"0x03\" && \$3 == 0 && \$7 == 1 && \$14 == 7" 20
	expect_n "20 back from port 7 in bulk IN transfers, checksums valid" "$W/ping.f" \
		"\$1 == \"0x03\" && \$3 == 1 && \$7 == 1 && \$13 == 7" 20
	# Turnaround from the records (the OUT URB's 'C' paired with its 'S' by URB id, the IN
	# 'C' carrying the reply), against the JSON's per echo; the pcap has microseconds.
	awk -F'|' '
		$2 == "'"'S'"'" && $4 == 8 { req[$11] = $12 }
		$2 == "'"'C'"'" && ($11 in req) && $4 == "" { out[req[$11]] = $10 }
		$2 == "'"'C'"'" && $4 == "0" { inn[$12] = $10 }
		END { for (s in inn) printf "%d %.6f\n", s, (inn[s] - out[s]) * 1000 }' "$W/ping.f" |
		sort -n >"$W/turn.pcap.txt"
	jq -r '.ping.echoes[] | "\(.seq) \(.turnaround_ms)"' "$W/ping.json" | sort -n >"$W/turn.json.txt"
	if [ "$(wc -l <"$W/turn.pcap.txt")" -eq 20 ] &&
		paste -d ' ' "$W/turn.pcap.txt" "$W/turn.json.txt" | awk '
		{ d = $2 - $4; if (d < 0) d = -d; if ($1 != $3 || d > 0.0011) bad++ }
		END { exit bad ? 1 : 0 }'; then
		ok "turnarounds from the usbmon records equal the reported ones (to the microsecond)"
	else
		not_ok "turnarounds from the records differ"
		paste "$W/turn.pcap.txt" "$W/turn.json.txt" | sed 's/^/# /' | head -n 20
	fi
fi

# The text report: per-echo lines and the summary.
sim --elf "$FW" --ping 3 --interval-ms 10 --size 100 >"$W/ping.txt" 2>&1
expect "the text report has the bring-up, per-echo lines and a summary" "$W/ping.txt" \
	'^usb +configured at [0-9.]+ ms$' '^link +up at [0-9.]+ ms$' \
	'^device +192\.0\.2\.1 [0-9a-f:]{17} \(resolved at' \
	'^ping +3 requests of 100 data bytes every 10\.000 ms' \
	'^ping echo +seq 2 rtt [0-9.]+ ms turnaround [0-9.]+ ms xip accesses [0-9]+ misses [0-9]+$' \
	'^ping received +3 \(0 lost' '^ping turnaround median [0-9.]+ ms' \
	'^ping misses +-?[0-9.]+ per echo'

# ---- Determinism and JSON keys ----

sim --elf "$FW" --ping 4 --interval-ms 5 --udp 300 --seconds 0.02 --json >"$W/a.json" 2>"$W/a.err"
sim --elf "$FW" --ping 4 --interval-ms 5 --udp 300 --seconds 0.02 --json >"$W/b.json" 2>"$W/b.err"
check "two runs give identical JSON" cmp "$W/a.json" "$W/b.json"
if [ "$(wc -l <"$W/a.json")" -eq 1 ] && jq -e . "$W/a.json" >/dev/null 2>&1; then
	ok "--json prints one valid JSON line"
else
	not_ok "--json is not one valid JSON line"
fi
expect "--json keeps the run's keys and adds usb, ping and udp" "$W/a.json" \
	'"image": ' '"result": "budget"' '"xip_misses": [0-9]+' '"timer_us": [0-9]+' \
	'"usb": \{"configured_ms": [0-9.]+' '"link_up_ms": [0-9.]+' '"resolved_ms": [0-9.]+' \
	'"ping": \{"count": 4' '"misses_per_echo": -?[0-9.]+' '"turnaround_ms": \{"median": [0-9.]+' \
	'"udp": \{"count": 6' '"echoes": \[\{"nonce": 4'
keys_documented "sim run" "$W/a.json"
sim --elf "$FW" --json >"$W/plain.json" 2>"$W/plain.err"
expect "without network options: usb, ping and udp are null" "$W/plain.json" \
	'"usb": null, "ping": null, "udp": null'

# ---- Failures ----

check_fails "--ping 0 is a usage error" "ping needs a number from 1" sim --elf "$FW" --ping 0
check_fails "--size without --ping" "go with --ping" sim --elf "$FW" --size 10
check_fails "--cycles does not go with traffic" "does not go with" sim --elf "$FW" --ping 1 --cycles 5
check_fails "--probe-socket belongs to serve" "sim serve" sim --elf "$FW" --probe-socket "$W/x"
check_fails "serve refuses --ping" "not a 'sim serve' one" "$XIPBENCH" sim serve --elf "$FW" --ping 1
check_fails "a device at another address does not answer ARP" "did not answer ARP" \
	sim --elf "$FW" --ping 1 --device-ip 192.0.2.77 --link-timeout 500

# ---- sim serve ----

CLIENT="$W/xbclient"
if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -o "$CLIENT" tests/unit/xbclient.c >"$W/cc.log" 2>&1; then
	not_ok "build the test client"
	sed 's/^/# /' "$W/cc.log"
	finish
	exit 1
fi
SOCK="$W/probe.sock"
"$XIPBENCH" sim serve --elf "$FW" --udp-port 0 --probe-socket "$SOCK" --seconds 2 \
	--pcap "$W/serve.pcap" >"$W/serve.out" 2>&1 &
spid=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/^udp  *127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$W/serve.out")
	[ -n "$port" ] && break
	sleep 0.02
done
if [ -n "$port" ]; then ok "serve prints the UDP port it chose ($port)"; else not_ok "no UDP port printed"; fi
hex=$(printf '%04X' "${port:-0}")
if grep -q "^ *[0-9]*: 0100007F:$hex " /proc/net/udp; then
	ok "the UDP socket is bound to 127.0.0.1 only"
else
	not_ok "no UDP socket on 127.0.0.1:$port"
fi
check "a datagram to 127.0.0.1:$port comes back from the board" "$CLIENT" udp "$port" "hello board" 15 100
expect "it went through the board's echo service" "$W/last.out" '^reply after [0-9]+ tries: hello board$'
check "DAP_Info through the probe socket" "$CLIENT" dap "$SOCK"
expect "the virtual probe answers" "$W/last.out" '^vendor xipbench$' '^packet size 64$'
wait "$spid"
rc=$?
if [ $rc -eq 0 ]; then ok "serve ends after --seconds with status 0"; else not_ok "serve exit status $rc"; fi
expect "serve reports what it served" "$W/serve.out" '^network +ready at' \
	'^stopped +as asked after 2\.[0-9]+ s' '^udp +[1-9][0-9]* forwarded, [1-9][0-9]* replies returned' \
	'^probe +[1-9][0-9]* packets$'
if [ -e "$SOCK" ]; then not_ok "the probe socket was left behind"; else ok "the probe socket is removed"; fi
n=$(grep -a -c 'hello board' "$W/serve.pcap")
if [ "$n" -ge 1 ]; then ok "the datagram is in the served capture"; else
	not_ok "the datagram is not in the served capture"
fi

"$XIPBENCH" sim serve --elf "$FW" >"$W/term.out" 2>&1 &
tpid=$!
sleep 0.3
kill -TERM "$tpid"
wait "$tpid"
rc=$?
if [ $rc -eq 0 ] && grep -q '^stopped  *by SIGTERM' "$W/term.out"; then
	ok "SIGTERM ends serve cleanly"
else
	not_ok "SIGTERM: exit status $rc"
	sed 's/^/# /' "$W/term.out"
fi
finish
