# test_tap: the virtual host's Ethernet on a TAP interface inside a network namespace the
# test makes (`sim serve --tap --netns`), reached through the Linux network stack as a real
# Pico's usb0 is: ping(8) inside the namespace, then `xipbench sim measure` inside it (ICMP
# datagram sockets, UDP, the usbmon stream of the serve, XIP counters over the serve's
# probe socket), whose figures must equal `sim run`'s for the same traffic within 2 %; the
# TAP is not in the host's namespace and the namespace routes nothing beyond its subnet;
# `--netns-create` makes a namespace and removes it; the refusals. Needs root and
# /dev/net/tun: without them it says so and reports a SKIP.
#
# What the 2 % compares. `sim run` measures inside the virtual host, in virtual time: the
# pings leave at exact instants of the board's clock. `sim serve` paces the board to the
# wall clock, and the requests of `sim measure` reach it when the kernel hands them to the
# TAP, at instants that depend on the machine. So the comparison uses figures that are
# virtual time or counts, not wall-clock times: the turnaround is the median over the pings
# of (end of the reply's bulk IN transfer - end of the request's bulk OUT transfer), both
# read from the usbmon records, whose times are the board's; the ping echo rate is replies
# per second of the traffic window (300 requests every 20 ms); the UDP echo rate is the
# replies to the datagrams of one 2-second step at 200/s, per second of the step; misses
# per echo (XIP counters read over SWD at the window edges, minus the idle window) are
# compared too. The turnaround is the only figure that can move: a request that arrives
# at another phase of the board's work takes a few microseconds more or less (the median
# comes out about 1 % above sim run's: 1.111 to 1.115 ms against 1.100 ms).
. tests/integration/lib.sh
W=$XB_WORK

skip() {
	echo "ok - # SKIP test_tap: $*"
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip "needs root (a TAP interface and a network namespace)"
[ -c /dev/net/tun ] || skip "/dev/net/tun is missing (load the module: modprobe tun)"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) is not installed"
command -v ping >/dev/null 2>&1 || skip "ping (iputils-ping) is not installed"
command -v jq >/dev/null 2>&1 || skip "jq is not installed"
command -v nsenter >/dev/null 2>&1 || skip "nsenter (util-linux) is not installed"

# Commands run in a namespace through nsenter, which enters its network namespace only:
# `ip netns exec` also remounts /sys, which fails where / is no mount point (a chroot).
in_ns() {
	n=$1
	shift
	nsenter --net="/run/netns/$n" "$@"
}

NS=xbtap-$$
TAPIF=xbt$$
TAP_IP=192.0.2.77
SOCK="$W/probe.sock"
CNS=""
cleanup() {
	for f in "$W/serve.pid" "$W/create.pid"; do
		[ -s "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
	done
	[ -n "${PIPE:-}" ] && wait "$PIPE" 2>/dev/null
	[ -n "${CPID:-}" ] && wait "$CPID" 2>/dev/null
	ip netns delete "$NS" 2>/dev/null
	[ -n "$CNS" ] && ip netns delete "$CNS" 2>/dev/null
	# `ip netns add` made /run/netns a mount point of its own: undo it when this test did
	# and no namespace is left in it
	if [ "$NETNS_MOUNTED" = 0 ] && mountpoint -q /run/netns 2>/dev/null &&
		[ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
		umount /run/netns 2>/dev/null
	fi
	return 0
}
NETNS_MOUNTED=0
mountpoint -q /run/netns 2>/dev/null && NETNS_MOUNTED=1
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add "$NS" 2>"$W/netns.err" ||
	skip "cannot make a network namespace: $(cat "$W/netns.err")"

# The device: the echo firmware if it builds and answers a ping, else the test device.
FW=firmware/build/echo.elf
if make -C firmware >"$W/fw.log" 2>&1 && [ -f "$FW" ] &&
	"$XIPBENCH" sim run --elf "$FW" --ping 1 --json >"$W/probe.json" 2>"$W/probe.err" &&
	[ "$(jq -r .ping.received "$W/probe.json" 2>/dev/null)" = 1 ]; then
	echo "# device: the echo firmware, $FW"
else
	echo "# device: the test device of tests/data/netdev (see $W/fw.log)"
	if ! sh tests/data/netdev/build.sh "$XB_BUILD/netdev-progs" >"$W/netdev.log" 2>&1; then
		not_ok "build the test device with arm-none-eabi-gcc"
		sed 's/^/# /' "$W/netdev.log" | head -n 20
		finish
		exit 1
	fi
	FW="$XB_BUILD/netdev-progs/netdev.elf"
fi

# ---- The virtual host's own figures ----

PINGS=300 INTERVAL=20 RATE=200 STEP=2
if "$XIPBENCH" sim run --elf "$FW" --ping $PINGS --interval-ms $INTERVAL --udp $RATE \
	--seconds $STEP --json >"$W/run.json" 2>"$W/run.err"; then
	ok "sim run: $PINGS pings every $INTERVAL ms, then UDP at $RATE/s for $STEP s"
else
	not_ok "sim run failed"
	sed 's/^/# /' "$W/run.err" | head -n 20
fi

# ---- sim serve --tap in the namespace, sim measure inside it ----

# pings from datagram sockets in the namespace (root could use raw ones: not needed)
in_ns "$NS" sh -c 'echo "0 2147483647" >/proc/sys/net/ipv4/ping_group_range'
# serve's usbmon stream goes to measure's standard input; measure starts when the test
# has pinged the board (the records wait in the pipe meanwhile)
(
	sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$W/serve.pid" \
		"$XIPBENCH" sim serve --elf "$FW" --tap "$TAPIF" --netns "$NS" --tap-ip "$TAP_IP/24" \
		--probe-socket "$SOCK" --pcap - --seconds 120 2>"$W/serve.out" |
		sh -c 'i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
			rc=$2; shift 2; "$@"; echo $? >"$rc"' sh "$W/go" "$W/measure.rc" \
			nsenter --net="/run/netns/$NS" timeout 90 "$XIPBENCH" sim measure --elf "$FW" \
			--socket "$SOCK" --capture - --netif "$TAPIF" --peer-ip "$TAP_IP" \
			--ping $PINGS --interval-ms $INTERVAL --udp $RATE --seconds $STEP --json \
			>"$W/measure.json" 2>"$W/measure.err"
) &
PIPE=$!
ready=0
for _ in $(seq 400); do
	grep -q '^network  *ready' "$W/serve.out" 2>/dev/null && { ready=1; break; }
	[ -s "$W/serve.pid" ] && ! kill -0 "$(cat "$W/serve.pid")" 2>/dev/null && break
	sleep 0.05
done
if [ $ready = 1 ]; then ok "serve --tap $TAPIF --netns $NS: the board's network is ready"; else
	not_ok "serve --tap: the network did not come up"
	sed 's/^/# /' "$W/serve.out" | head -n 20
fi
expect "serve names the TAP, its namespace and addresses" "$W/serve.out" \
	"^tap +$TAPIF in network namespace $NS, $TAP_IP/24 \\(the device at 192\\.0\\.2\\.1\\)$"

# isolation: the interface is the namespace's, which routes nothing beyond its subnet
check_fails "the TAP does not exist in the host's namespace" "does not exist" ip link show "$TAPIF"
check "the TAP is in the namespace" in_ns "$NS" ip -4 addr show dev "$TAPIF"
expect "it has the --tap-ip address" "$W/last.out" "inet $TAP_IP/24 "
in_ns "$NS" ip -o link show >"$W/links.txt" 2>&1
if [ "$(awk -F': ' '{ print $2 }' "$W/links.txt" | sort | tr '\n' ' ')" = \
	"$(printf '%s\n' lo "$TAPIF" | sort | tr '\n' ' ')" ]; then
	ok "the namespace has only lo and the TAP"
else
	not_ok "the namespace's interfaces"
	sed 's/^/# /' "$W/links.txt"
fi
in_ns "$NS" ip -4 route show >"$W/routes.txt" 2>&1
in_ns "$NS" ip -6 route show >>"$W/routes.txt" 2>&1
if [ -s "$W/routes.txt" ] && awk -v dev="$TAPIF" '
	!($1 == "192.0.2.0/24" && $2 == "dev" && $3 == dev) { bad++ } END { exit bad ? 1 : 0 }' \
	"$W/routes.txt"; then
	ok "the namespace's only route is its subnet, 192.0.2.0/24 on the TAP"
else
	not_ok "the namespace routes beyond its subnet"
	sed 's/^/# /' "$W/routes.txt"
fi
check_fails "nothing beyond the subnet is reachable from the namespace" "unreachable" \
	in_ns "$NS" ip route get 198.51.100.1
if command -v ss >/dev/null 2>&1 && [ -s "$W/serve.pid" ]; then
	spid=$(cat "$W/serve.pid")
	if ss -H -a -n -p -A inet 2>/dev/null | grep -q "pid=$spid,"; then
		not_ok "serve has an internet socket in the host's namespace"
		ss -a -n -p -A inet | grep "pid=$spid," | sed 's/^/# /'
	else
		ok "serve has no internet socket in the host's namespace"
	fi
fi

# ordinary tools reach the board
check "ping inside the namespace reaches the virtual Pico" \
	in_ns "$NS" ping -n -c 3 -i 0.2 -W 2 192.0.2.1
expect "3 echoes, none lost" "$W/last.out" "3 packets transmitted, 3 received"

: >"$W/go"
# measure's own bounds: --link-timeout 10 s, then the windows (about 20 s); timeout 90
for _ in $(seq 2400); do [ -s "$W/measure.rc" ] && break; sleep 0.05; done
rc=$(cat "$W/measure.rc" 2>/dev/null)
if [ "$rc" = 0 ]; then ok "sim measure inside the namespace ends with status 0"; else
	not_ok "sim measure: exit status $rc"
	sed 's/^/# /' "$W/measure.err" | head -n 20
fi
kill -TERM "$(cat "$W/serve.pid")" 2>/dev/null
wait "$PIPE" # serve's end ends the pipeline
PIPE=""
rm -f "$W/serve.pid"
expect "serve stops at SIGTERM and counts the TAP's frames" "$W/serve.out" \
	'^stopped +by SIGTERM' '^tap +[0-9]+ frames to the board, [0-9]+ from it, 0 dropped$'
n=$(sed -n 's/^tap  *\([0-9]*\) frames to the board.*/\1/p' "$W/serve.out")
want=$((3 + PINGS + RATE * STEP))
if [ "${n:-0}" -ge $want ]; then ok "the TAP took $n frames to the board (at least $want)"; else
	not_ok "the TAP took ${n:-no} frames to the board (expected at least $want)"
fi
# the kernel knows the board from the pings above: the interface's only neighbour
expect "measure found the board's address on the interface, pinged through datagram sockets" \
	"$W/measure.json" "\"network\": \"$TAPIF, the interface's only IPv4 neighbour, board 192\\.0\\.2\\.1, UDP port 7, pings: datagram socket\""
r=$(jq -r '"\(.ping.count) \(.ping.received) \(.udp.sent) \(.udp.received)"' "$W/measure.json" 2>/dev/null)
if [ "$r" = "$PINGS $PINGS $((RATE * STEP)) $((RATE * STEP))" ]; then
	ok "measure: $PINGS pings and $((RATE * STEP)) datagrams, every one answered"
else
	not_ok "measure: pings sent received, datagrams sent received: $r"
fi

keys_documented "sim measure" "$W/measure.json"

# ---- The figures, within 2 % ----

# within LABEL MEASURED REFERENCE: |measured - reference| <= 2 % of reference
within() {
	if awk -v m="$2" -v r="$3" 'BEGIN { d = m - r; if (d < 0) d = -d
		exit (m == "" || m == "null" || r == "" || r == "null" || d > 0.02 * (r < 0 ? -r : r)) }'; then
		ok "$1: measure $2, sim run $3 (within 2 %)"
	else
		not_ok "$1: measure $2, sim run $3 (not within 2 %)"
	fi
}
m=$(jq -r '.ping.turnaround_ms' "$W/measure.json" 2>/dev/null)
r=$(jq -r '.ping.turnaround_ms.median' "$W/run.json" 2>/dev/null)
within "ping turnaround (median, ms, usbmon records)" "$m" "$r"
m=$(jq -r '.ping.echo_rate' "$W/measure.json" 2>/dev/null)
r=$(jq -r '.ping.echo_rate' "$W/run.json" 2>/dev/null)
within "ping echo rate (replies/s)" "$m" "$r"
m=$(jq -r '.udp.echo_rate' "$W/measure.json" 2>/dev/null)
r=$(jq -r '.udp.echo_rate' "$W/run.json" 2>/dev/null)
within "UDP echo rate at $RATE/s (replies/s)" "$m" "$r"
m=$(jq -r '.ping.misses_per_echo' "$W/measure.json" 2>/dev/null)
r=$(jq -r '.ping.misses_per_echo' "$W/run.json" 2>/dev/null)
within "XIP misses per echo" "$m" "$r"

# ---- --netns-create: a namespace of xipbench's own, removed at the end ----

sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$W/create.pid" \
	"$XIPBENCH" sim serve --elf "$FW" --tap "$TAPIF" --netns-create --seconds 4 \
	>"$W/create.out" 2>&1 &
CPID=$!
ready=0
for _ in $(seq 400); do
	grep -q '^network  *ready' "$W/create.out" 2>/dev/null && { ready=1; break; }
	kill -0 "$CPID" 2>/dev/null || break
	sleep 0.05
done
CNS=$(sed -n 's/^tap  *[^ ]* in network namespace \([^ ,]*\) (made for this run).*/\1/p' "$W/create.out")
if [ $ready = 1 ] && [ -n "$CNS" ] && ip netns list | awk '{ print $1 }' | grep -qx "$CNS"; then
	ok "--netns-create made namespace $CNS"
else
	not_ok "--netns-create: no namespace (ready $ready, name '$CNS')"
	sed 's/^/# /' "$W/create.out" | head -n 20
fi
[ -n "$CNS" ] && check "ping inside it reaches the virtual Pico" \
	in_ns "$CNS" ping -n -c 1 -W 2 192.0.2.1
check_fails "its TAP is not in the host's namespace" "does not exist" ip link show "$TAPIF"
wait "$CPID"
rc=$?
CPID=""
rm -f "$W/create.pid"
if [ $rc -eq 0 ]; then ok "serve --netns-create ends after --seconds with status 0"; else
	not_ok "serve --netns-create: exit status $rc"
	sed 's/^/# /' "$W/create.out" | head -n 20
fi
if [ -n "$CNS" ] && ! ip netns list | awk '{ print $1 }' | grep -qx "$CNS" && [ ! -e "/run/netns/$CNS" ]; then
	ok "the namespace it made is gone"
	CNS=""
else
	not_ok "namespace '$CNS' is left behind"
fi

# ---- Refusals ----

serve() { "$XIPBENCH" sim serve --elf "$FW" --seconds 1 "$@"; }
check_fails "--tap needs a namespace" "needs a network namespace" serve --tap xbq$$
check_fails "--netns goes with --tap" "go with --tap" serve --netns "$NS"
check_fails "--netns and --netns-create together" "needs a network namespace" \
	serve --tap xbq$$ --netns "$NS" --netns-create
check_fails "never the host's own namespace" \
	"initial network namespace|the network namespace xipbench runs in" \
	serve --tap xbq$$ --netns /proc/self/ns/net
check_fails "nor PID 1's" "initial network namespace|Permission denied" \
	serve --tap xbq$$ --netns /proc/1/ns/net
check_fails "a namespace that does not exist" "does not exist.*ip netns add xipbench-none-$$" \
	serve --tap xbq$$ --netns xipbench-none-$$
check_fails "--tap-ip outside the device's subnet" "another host of the device's subnet" \
	serve --tap xbq$$ --netns "$NS" --tap-ip 10.0.0.2/24
check_fails "--tap-ip is the device's address" "another host of the device's subnet" \
	serve --tap xbq$$ --netns "$NS" --tap-ip 192.0.2.1/24
check_fails "--tap-ip with a /31" "ADDR/LEN with LEN 1 to 30" \
	serve --tap xbq$$ --netns "$NS" --tap-ip 192.0.2.2/31
check_fails "nothing was made in the host's namespace" "does not exist" ip link show xbq$$
finish
